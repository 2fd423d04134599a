// `kubefedctl completion bash|fish|zsh` as a user loads it: the generated bash script sourced into
// a real bash, its completion function called with COMP_WORDS/COMP_CWORD set, COMPREPLY read back;
// the fish script sourced into a real fish and asked with `complete -C`; the zsh script's function
// called in a real zsh with compsys's variables set. The scripts run `kubefedctl` from PATH, here a wrapper around the sources, against kube-sim.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation } from './sim-federation.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const mainTs = path.join(repoRoot, 'packages/kubefedctl/src/main.ts');

let fed: SimFederation;
let bin: string;
let script: string;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
  await fed.controlPlane('host', 'kube-federation-system');
  bin = path.join(fed.dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, 'kubefedctl'),
    `#!/bin/sh\nexec "${process.execPath}" --conditions=@kubefed/source --import tsx "${mainTs}" "$@"\n`,
    { mode: 0o755 },
  );
  const r = await fed.cli(['completion', 'bash']);
  expect(r.code).toBe(0);
  script = path.join(fed.dir, 'kubefedctl.bash');
  fs.writeFileSync(script, r.stdout);
  const enabled = await fed.cli(['enable', 'deployments.apps']);
  expect(enabled.code).toBe(0);
}, 180_000);

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

/** Runs the completion function of the sourced script for `words` (the last one being typed) and returns COMPREPLY. */
function complete(words: string[]): Promise<string[]> {
  const line = ['kubefedctl', ...words].join(' ');
  const quoted = ['kubefedctl', ...words].map((w) => `'${w}'`).join(' ');
  const program = [
    `source '${script}'`,
    `COMP_WORDS=(${quoted})`,
    `COMP_CWORD=${words.length}`,
    `COMP_LINE='${line}'`,
    'COMP_POINT=${#COMP_LINE}',
    '_kubefedctl_completion',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: fed.dir, KUBECONFIG: fed.kubeconfig };
  return new Promise((resolve, reject) => {
    execFile('bash', ['--norc', '--noprofile', '-c', program], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`bash failed: ${error.message}\n${stderr}`));
      else resolve(stdout.split('\n').filter((l) => l !== ''));
    });
  });
}

describe('kubefedctl completion bash in a real bash', () => {
  it('prints a script that registers the completion function', () => {
    expect(fs.readFileSync(script, 'utf8')).toContain('complete -o default -F _kubefedctl_completion kubefedctl');
  });

  it.each([
    ['subcommands', ['dis'], ['disable']],
    ['flags of the command', ['disable', 'x', '--ke'], ['--keep-ftc']],
    ['global flags', ['status', '--host-cluster-c'], ['--host-cluster-context']],
    ['kubeconfig contexts for --host-cluster-context', ['--host-cluster-context', ''], ['host', 'member']],
    ['kubeconfig contexts for --cluster-context', ['join', 'member1', '--cluster-context', 'mem'], ['member']],
    [
      'kubeconfig contexts after --host-cluster-context= (bash splits the word at =)',
      ['status', '--host-cluster-context', '=', 'h'],
      ['host'],
    ],
    ['enabled federated types from the host for disable', ['disable', ''], ['deployments.apps']],
    ['served types from the host for enable', ['enable', 'configm'], ['configmaps']],
    ['federated types from the host for orphaning-deletion', ['orphaning-deletion', 'enable', 'fed'], ['federateddeployments']],
    ['shells', ['completion', 'b'], ['bash']],
  ])(
    'completes %s',
    async (_what, words, expected) => {
      expect(await complete(words)).toEqual(expected);
    },
    90_000,
  );
});

/** Sources the fish script into a real fish and returns the names it completes for `line`. */
async function completeInFish(line: string): Promise<string[]> {
  const fishScript = path.join(fed.dir, 'kubefedctl.fish');
  if (!fs.existsSync(fishScript)) {
    const r = await fed.cli(['completion', 'fish']);
    expect(r.code).toBe(0);
    fs.writeFileSync(fishScript, r.stdout);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: fed.dir, KUBECONFIG: fed.kubeconfig };
  // `complete -C` runs the registered completion as a key press would; --no-config keeps the user's files out.
  const program = `source '${fishScript}'; complete -C '${line}'`;
  return new Promise((resolve, reject) => {
    execFile('fish', ['--no-config', '-c', program], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`fish failed: ${error.message}\n${stderr}`));
      else
        resolve(
          stdout
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => l.split('\t')[0] ?? ''),
        );
    });
  });
}

/**
 * Sources the zsh script into a real zsh and calls its completion function for `typed` (the last
 * word being typed), as compsys would: `words` and `CURRENT` set, and compsys's `compdef` and
 * `_describe` replaced by functions that print the candidates' names.
 */
async function completeInZsh(typed: string[]): Promise<string[]> {
  const zshScript = path.join(fed.dir, 'kubefedctl.zsh');
  if (!fs.existsSync(zshScript)) {
    const r = await fed.cli(['completion', 'zsh']);
    expect(r.code).toBe(0);
    fs.writeFileSync(zshScript, r.stdout);
  }
  const words = ['kubefedctl', ...typed].map((w) => `'${w}'`).join(' ');
  const program = [
    'compdef() { :; }',
    '_describe() { print -rl -- "${(@P)2}"; }',
    `source '${zshScript}'`,
    `words=(${words})`,
    `CURRENT=${typed.length + 1}`,
    '_kubefedctl_completion',
  ].join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: fed.dir, KUBECONFIG: fed.kubeconfig };
  return new Promise((resolve, reject) => {
    execFile('zsh', ['-f', '-c', program], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`zsh failed: ${error.message}\n${stderr}`));
      else
        resolve(
          stdout
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => l.replace(/(?<!\\):.*$/, '').replaceAll('\\:', ':')),
        );
    });
  });
}

describe('kubefedctl completion fish and zsh in real shells', () => {
  it.each([
    ['the subcommand being typed', 'kubefedctl dis', ['disable']],
    ['every subcommand after a space', 'kubefedctl ', ['completion', 'dashboard', 'disable', 'enable', 'federate', 'join']],
    ['flags of the command', 'kubefedctl disable x --ke', ['--keep-ftc']],
    ['kubeconfig contexts', 'kubefedctl status --host-cluster-context ', ['host', 'member']],
    ['enabled federated types from the host', 'kubefedctl disable ', ['deployments.apps']],
  ])(
    'fish completes %s',
    async (_what, line, expected) => {
      const names = await completeInFish(line);
      for (const name of expected) expect(names).toContain(name);
      if (!line.endsWith(' ')) expect(names).toEqual(expected);
    },
    90_000,
  );

  it.each([
    ['the subcommand being typed', ['dis'], ['disable']],
    ['flags of the command', ['disable', 'x', '--ke'], ['--keep-ftc']],
    ['kubeconfig contexts', ['status', '--host-cluster-context', ''], ['host', 'member']],
    ['enabled federated types from the host', ['disable', ''], ['deployments.apps']],
  ])(
    'zsh completes %s',
    async (_what, typed, expected) => {
      const names = await completeInZsh(typed);
      expect(names).toEqual(expected);
    },
    90_000,
  );
});
