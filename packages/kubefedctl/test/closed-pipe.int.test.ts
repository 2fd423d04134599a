// kubefedctl as a process whose standard output or error is a pipe its reader closed early
// (`kubefedctl --help | head -1`): it exits quietly with its own exit code, no EPIPE stack trace.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const mainTs = path.resolve(import.meta.dirname, '../src/main.ts');
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const kubefedctl = `'${process.execPath}' --conditions=@kubefed/source --import tsx '${mainTs}'`;

/** Runs `script` in bash with pipefail; resolves with its exit status and what reached this process. */
async function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', `set -o pipefail; ${script}`], {
      cwd: repoRoot,
      env: { ...process.env, HOME: '/nonexistent-home', KUBECONFIG: '' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('kubefedctl writing into a closed pipe', () => {
  it('prints the first line of the help into head -1 and exits 0', async () => {
    const r = await bash(`${kubefedctl} --help | head -1`);
    expect(r).toEqual({ code: 0, stdout: 'Usage: kubefedctl [options] [command]\n', stderr: '' });
  }, 60_000);

  // `true` never reads and exits at once: every write meets a closed pipe.
  it.each(['--help', 'version', 'completion bash', 'join --help'])(
    'exits 0 without a word on stderr when the reader of "%s" is gone before the first write',
    async (args) => {
      const r = await bash(`${kubefedctl} ${args} | true`);
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    },
    60_000,
  );

  it('carries on when standard error is a closed pipe: the deprecation warning is dropped, the version printed, exit 0', async () => {
    const r = await bash(`{ ${kubefedctl} --logtostderr version 2>&1 1>&3 3>&- | true; } 3>&1`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubefedctl version: /);
    expect(r.stderr).toBe('');
  }, 60_000);
});
