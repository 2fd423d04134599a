// `kubefedctl completion bash` as a user loads it: the generated script sourced into a real bash,
// its completion function called with COMP_WORDS/COMP_CWORD set, COMPREPLY read back. The script
// runs `kubefedctl` from PATH, here a wrapper around the sources, against kube-sim.
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
