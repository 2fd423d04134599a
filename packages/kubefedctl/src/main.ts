#!/usr/bin/env node
// The kubefedctl process: wires argv, the environment and stdio into `run` and sets the exit code.
// No top-level await: the packaged single executable runs this file bundled as CommonJS.
import os from 'node:os';
import type { Writable } from 'node:stream';
import { buildInfo } from '@kubefed/api';
import { run } from './cli.js';
import { invocationName } from './help-format.js';

/** Handlers of `onInterrupt` subscribed now: called on SIGINT, SIGTERM and when standard output is closed by its reader. */
const interrupted = new Set<() => void>();
const interrupt = (): void => {
  for (const handler of [...interrupted]) handler();
};

/**
 * A writer to `stream` that goes quiet once the reader has closed the pipe (`kubefedctl ... | head -1`):
 * nothing more is written and no EPIPE stack trace is printed; the command carries on to its own
 * exit code, and one waiting for Ctrl-C (`status --watch`) stops as if interrupted when standard
 * output is the pipe that closed.
 */
function pipeWriter(stream: Writable): (text: string) => void {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    closed = true;
    if (stream === process.stdout) interrupt();
  });
  return (text) => {
    if (!closed && !stream.destroyed) stream.write(text);
  };
}

const stdout = pipeWriter(process.stdout);
const stderr = pipeWriter(process.stderr);

void run(process.argv.slice(2), {
  color: process.stdout.isTTY === true && (process.env['NO_COLOR'] ?? '') === '',
  onInterrupt: (handler) => {
    interrupted.add(handler);
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      interrupted.delete(handler);
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
  stdout,
  stderr,
  env: { ...process.env, HOME: process.env['HOME'] ?? os.homedir() },
  programName: invocationName(process.argv[1]),
  buildInfo: () => buildInfo({ nodeVersion: process.version, os: process.platform, arch: process.arch }),
}).then((code) => {
  process.exitCode = code;
});
