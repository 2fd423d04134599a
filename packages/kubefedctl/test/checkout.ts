// The repository checkout the tests run in, for the tests of the programs as users run them.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';

/** The repository root. */
export const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Asserts `commit` is a commit of this checkout (HEAD, or an ancestor when a commit landed since). */
export function expectCheckoutCommit(commit: string | undefined): void {
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  expect(() => execFileSync('git', ['merge-base', '--is-ancestor', commit!, 'HEAD'], { cwd: repoRoot, stdio: 'ignore' })).not.toThrow();
}
