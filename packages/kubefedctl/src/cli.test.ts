import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBool, parseTimeout, run, type RunIo } from './cli.js';
import { validateJoinNames } from './commands/join.js';
import { normalizeVerbosityArgs } from './klog-verbosity.js';
import { type BuildInfo, formatVersion } from './commands/version.js';

const buildInfo: BuildInfo = {
  gitVersion: 'v0.1.0',
  gitCommit: '0123456789abcdef0123456789abcdef01234567',
  gitTreeState: 'clean',
  buildDate: '2026-11-21T10:00:00Z',
  nodeVersion: 'v20.20.0',
  platform: 'linux/x64',
};

async function cli(
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = { stdout: '', stderr: '' };
  const io: RunIo = {
    stdout: (s) => void (r.stdout += s),
    stderr: (s) => void (r.stderr += s),
    env: { HOME: '/nonexistent-home', ...env },
    buildInfo: () => buildInfo,
  };
  const code = await run(argv, io);
  return { code, ...r };
}

let dir: string;
let kubeconfig: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-cli-'));
  kubeconfig = path.join(dir, 'config');
  // Both contexts point at a closed port: these tests never get as far as a request.
  fs.writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: host',
      '  cluster: { server: "https://127.0.0.1:1" }',
      'users:',
      '- name: admin',
      '  user: { token: "t" }',
      'contexts:',
      '- name: host',
      '  context: { cluster: host, user: admin }',
      '- name: "arn:aws:eks:x/host"',
      '  context: { cluster: host, user: admin }',
      'current-context: host',
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('kubefedctl run', () => {
  it('prints help and exits 0 when run without arguments', async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: kubefedctl');
    expect(r.stdout).toMatch(/^ {2}join +Register a cluster as a member of the federation$/m);
    expect(r.stdout).toContain('--kubefed-namespace');
  });

  it('names itself kubectl kubefed in help and usage when run as the kubectl plugin', async () => {
    const lines = { stdout: '', stderr: '' };
    const io: RunIo = {
      stdout: (s) => void (lines.stdout += s),
      stderr: (s) => void (lines.stderr += s),
      env: {},
      programName: 'kubectl kubefed',
    };
    expect(await run(['join', '--help'], io)).toBe(0);
    expect(lines.stdout).toMatch(/^Usage: kubectl kubefed join \[options\] <cluster-name>/);
  });

  it.each([['join'], ['unjoin'], ['version']])('shows help with a description and examples for %s', async (command) => {
    const r = await cli([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: kubefedctl ${command}`);
    expect(r.stdout).toContain('Examples:');
  });

  it('documents least privilege as the default of join and --cluster-admin as the way to full access', async () => {
    const r = await cli(['join', '--help']);
    expect(r.stdout).toMatch(/--cluster-admin\s+grant the control plane full access/);
    expect(r.stdout).toMatch(/--least-privilege\s+the default/);
  });

  it('refuses --cluster-admin together with --least-privilege before reading any kubeconfig', async () => {
    const r = await cli(['join', 'member1', '--cluster-admin', '--least-privilege', '--kubeconfig', path.join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: join: give either --cluster-admin or --least-privilege, not both');
  });

  it.each([
    ['an unknown command', ['frobnicate'], "Error: unknown command 'frobnicate'"],
    ['an unknown flag', ['join', 'm1', '--bogus'], "Error: unknown option '--bogus'"],
    ['a missing cluster name', ['join'], "Error: missing required argument 'cluster-name'"],
    ['a non-boolean --error-on-existing', ['join', 'm1', '--error-on-existing=maybe'], 'expected true or false'],
    ['an unsupported output format', ['join', 'm1', '-o', 'json'], 'Allowed choices are yaml'],
    ['a bad --timeout', ['join', 'm1', '--timeout', 'soon'], 'expected a positive duration'],
  ])('exits 1 with commander’s message for %s', async (_what, argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('prints the version like KubeFed, in one line', async () => {
    const r = await cli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'kubefedctl version: {gitVersion: "v0.1.0", gitCommit: "0123456789abcdef0123456789abcdef01234567", gitTreeState: "clean", buildDate: "2026-11-21T10:00:00Z", nodeVersion: "v20.20.0", platform: "linux/x64"}\n',
    );
  });

  it('prints the version as JSON with -o json', async () => {
    const r = await cli(['version', '-o', 'json']);
    expect(JSON.parse(r.stdout)).toEqual(buildInfo);
  });

  it('fails with a hint when the kubeconfig cannot be read', async () => {
    const r = await cli(['join', 'member1', '--kubeconfig', path.join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: cannot read kubeconfig ".*missing"/);
    expect(r.stderr).toContain('hint: pass --kubeconfig <file> or set KUBECONFIG');
    expect(r.stderr).not.toContain('    at ');
  });

  it('finds the kubeconfig through KUBECONFIG and names the known contexts when one is missing', async () => {
    const r = await cli(['join', 'member1'], { KUBECONFIG: kubeconfig });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error: kubeconfig has no context "member1"\nhint: pass --cluster-context with one of: host, arn:aws:eks:x/host\n',
    );
  });

  it('requires --host-cluster-name when the host context name contains ":" or "/"', async () => {
    const r = await cli([
      'join',
      'member1',
      '--kubeconfig',
      kubeconfig,
      '--host-cluster-context',
      'arn:aws:eks:x/host',
      '--cluster-context',
      'host',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: host-cluster-name must be set if the name of the host cluster context contains one of ":" or "/"');
    expect(r.stderr).toContain('hint: pass --host-cluster-name <name>');
  });

  it.each([
    ['--v=6', ['--v=6']],
    ['-v 6', ['-v', '6']],
    ['-v6', ['-v6']],
    ['--verbose', ['--verbose']],
  ])('prints the stack trace of an error with %s', async (_what, flags) => {
    const r = await cli([...flags, 'join', 'member1', '--kubeconfig', path.join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: cannot read kubeconfig/);
    expect(r.stderr).toContain('    at ');
  });

  it.each([['--v=2'], ['--v=0']])('prints no stack trace with %s', async (flag) => {
    const r = await cli(['join', 'member1', flag, '--kubeconfig', path.join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('    at ');
  });

  it('rejects a verbosity that is not a number', async () => {
    const r = await cli(['--v=high', 'version']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error: option '-v, --v <level>' argument 'high' is invalid. expected a non-negative integer");
  });

  it('prints commander’s usage errors as Error: with a hint line after them', async () => {
    const r = await cli(['join', 'm1', '--bogus']);
    expect(r.stderr).toBe("Error: unknown option '--bogus'\nhint: run the command with --help for its usage\n");
  });

  it('prints the stack trace only with -v', async () => {
    const r = await cli(['-v', 'join', 'member1', '--kubeconfig', path.join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('    at ');
  });

  it('rejects an invalid cluster name before contacting anything', async () => {
    const r = await cli(['unjoin', 'BAD_NAME', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: cluster name "BAD_NAME" is not a valid Kubernetes object name');
  });
});

describe('flag parsing', () => {
  it.each([
    [
      ['--v=2', 'join'],
      ['--v=2', 'join'],
    ],
    [
      ['-v', '3', 'join'],
      ['--v=3', 'join'],
    ],
    [
      ['join', 'm1', '-v=4'],
      ['join', 'm1', '--v=4'],
    ],
    [['-v5'], ['--v=5']],
    [
      ['-v', 'join'],
      ['--verbose', 'join'],
    ],
    [
      ['enable', 'x', '-v'],
      ['enable', 'x', '--verbose'],
    ],
    [
      ['--v', '2'],
      ['--v', '2'],
    ],
    [
      ['federate', '-f', '-', '--', '-v', '2'],
      ['federate', '-f', '-', '--', '-v', '2'],
    ],
  ])('reads klog verbosity %j as %j', (argv, expected) => {
    expect(normalizeVerbosityArgs(argv)).toEqual(expected);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['FALSE', false],
    ['1', true],
    ['0', false],
  ])('parses --error-on-existing=%s', (value, expected) => {
    expect(parseBool(value)).toBe(expected);
  });

  it.each([
    ['30s', 30_000],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['45', 45_000],
    ['500ms', 500],
  ])('parses --timeout %s', (value, ms) => {
    expect(parseTimeout(value)).toBe(ms);
  });

  it.each([['0s'], ['-5s'], ['soon']])('rejects --timeout %s', (value) => {
    expect(() => parseTimeout(value)).toThrow('expected a positive duration');
  });
});

describe('validateJoinNames', () => {
  it.each([
    ['', 'host', false, 'NAME is required'],
    ['Member1', 'host', false, 'cluster name "Member1" is not a valid Kubernetes object name'],
    ['m1', 'a/b', true, 'host-cluster-name may not contain "/" or ":"'],
    ['m1', 'a:b', false, 'host-cluster-name must be set if the name of the host cluster context contains one of ":" or "/"'],
    ['m1', 'Host', true, 'service account name "m1-Host" is not a valid Kubernetes object name'],
  ])('rejects cluster %j with host %j', (cluster, host, flagGiven, message) => {
    expect(() => validateJoinNames(cluster, host, flagGiven)).toThrow(message);
  });

  it('accepts KubeFed-style names', () => {
    expect(() => validateJoinNames('member1', 'kind-host', false)).not.toThrow();
  });
});

describe('formatVersion', () => {
  it('renders every field of the build info', () => {
    expect(formatVersion({ ...buildInfo, gitTreeState: 'dirty' })).toContain('gitTreeState: "dirty"');
  });
});
