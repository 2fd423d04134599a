#!/usr/bin/env node
// The kubefedctl process: wires argv, the environment and stdio into `run` and sets the exit code.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './cli.js';
import { readBuildInfo } from './commands/version.js';

const entryFile = fileURLToPath(import.meta.url);
const packageDir = path.resolve(path.dirname(entryFile), '..');

const code = await run(process.argv.slice(2), {
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
  buildInfo: () => readBuildInfo({ packageDir, entryFile, nodeVersion: process.version, os: process.platform, arch: process.arch }),
});
process.exitCode = code;
