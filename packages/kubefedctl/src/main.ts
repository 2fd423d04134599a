#!/usr/bin/env node
// The kubefedctl process: wires argv, the environment and stdio into `run` and sets the exit code.
// No top-level await: the packaged single executable runs this file bundled as CommonJS.
import os from 'node:os';
import { buildInfo } from '@kubefed/api';
import { run } from './cli.js';
import { invocationName } from './help-format.js';

void run(process.argv.slice(2), {
  color: process.stdout.isTTY === true && (process.env['NO_COLOR'] ?? '') === '',
  onInterrupt: (handler) => {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: { ...process.env, HOME: process.env['HOME'] ?? os.homedir() },
  programName: invocationName(process.argv[1]),
  buildInfo: () => buildInfo({ nodeVersion: process.version, os: process.platform, arch: process.arch }),
}).then((code) => {
  process.exitCode = code;
});
