import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Kubeconfig } from '@kubefed/client';
import { mergeKubeconfigFiles, parseSimProcesses, simProcessGroups } from './sim-processes.js';
import { TestingError } from './testing-error.js';

describe('simProcessGroups', () => {
  it.each([
    ['one', ['host', 'm1', 'm2'], [['host', 'm1', 'm2']]],
    ['host-apart', ['host', 'm1', 'm2'], [['host'], ['m1', 'm2']]],
    ['host-apart', ['host'], [['host']]],
    ['per-cluster', ['host', 'm1', 'm2'], [['host'], ['m1'], ['m2']]],
    ['one', [], []],
  ] as const)('spreads with %s %j as %j', (mode, names, groups) => {
    expect(simProcessGroups(names, mode)).toEqual(groups);
  });
});

describe('parseSimProcesses', () => {
  it.each(['one', 'host-apart', 'per-cluster'] as const)('accepts %s', (value) => {
    expect(parseSimProcesses(value)).toBe(value);
  });

  it('refuses any other value, naming the field and the accepted values', () => {
    expect(() => parseSimProcesses('two', '--split')).toThrow(TestingError);
    expect(() => parseSimProcesses('two', '--split')).toThrow('--split must be one of one, host-apart, per-cluster, got "two"');
  });
});

describe('mergeKubeconfigFiles', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const part = (name: string, port: number): string =>
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `  - name: ${name}`,
      '    cluster:',
      `      server: https://127.0.0.1:${port}`,
      'users:',
      `  - name: ${name}`,
      '    user:',
      `      token: token-${name}`,
      'contexts:',
      `  - name: ${name}`,
      '    context:',
      `      cluster: ${name}`,
      `      user: ${name}`,
      `current-context: ${name}`,
      '',
    ].join('\n');

  it('writes one kubeconfig with every context of the parts, private to the user, and removes the parts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubefed-merge-'));
    const parts = [join(dir, 'a'), join(dir, 'b')];
    await writeFile(parts[0]!, part('host', 1001));
    await writeFile(parts[1]!, part('member1', 1002));
    const target = join(dir, 'kubeconfig');
    await mergeKubeconfigFiles(parts, target, 'host');
    const config = Kubeconfig.fromFile(target);
    expect(config.currentContext).toBe('host');
    expect(config.contexts().map((c) => [c.name, c.server])).toEqual([
      ['host', 'https://127.0.0.1:1001'],
      ['member1', 'https://127.0.0.1:1002'],
    ]);
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    for (const p of parts) await expect(readFile(p)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a part that is not a kubeconfig, naming it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubefed-merge-'));
    const bad = join(dir, 'bad');
    await writeFile(bad, 'just: text\n');
    await expect(mergeKubeconfigFiles([bad], join(dir, 'kubeconfig'), 'host')).rejects.toThrow(
      `${bad}: not a kubeconfig (no contexts list)`,
    );
  });
});
