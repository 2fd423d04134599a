import { parseGoDuration } from '@kubefed/api';
import { InvalidArgumentError } from 'commander';
import fs from 'node:fs';
import { UsageError } from './errors.js';

/** Parses `true`/`false` (for `--error-on-existing=false`). */
export function parseBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 't') return true;
  if (v === 'false' || v === '0' || v === 'f') return false;
  throw new InvalidArgumentError('expected true or false.');
}

/** Parses a positive Go duration (`30s`, `2m`) or a plain number of seconds into ms. */
export function parseTimeout(value: string): number {
  const ms = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) * 1000 : parseGoDuration(value.trim());
  if (ms === undefined || !(ms > 0)) throw new InvalidArgumentError('expected a positive duration such as 30s or 2m.');
  return ms;
}

/** The text of a file named on the command line (`-f <file>`), or a UsageError naming it. */
export function readFileArg(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`-f ${file}: cannot read the file: ${e instanceof Error ? e.message : String(e)}`);
  }
}
