import { describe, expect, it } from 'vitest';
import { buildProgram } from './cli.js';
import { COMPLETE_FILES, completeWords, type CompletionConnection, type CompletionSources } from './completion.js';

// An in-memory implementation of the sources; it records the connection it was asked about.
const asked: CompletionConnection[] = [];
const sources: CompletionSources = {
  contexts: () => ['host', 'member1', 'member2'],
  targetTypes: (conn) => (asked.push(conn), Promise.resolve(['deployments.apps', 'configmaps', 'widgets.example.com'])),
  enabledTypes: (conn) => (asked.push(conn), Promise.resolve(['deployments.apps', 'secrets'])),
  federatedTypes: () => Promise.resolve(['federateddeployments', 'federatedsecrets']),
  joinedClusters: () => Promise.resolve(['member1']),
};

const program = buildProgram({ stdout: () => {}, stderr: () => {}, env: {} });

async function names(words: string[]): Promise<string[] | typeof COMPLETE_FILES> {
  const r = await completeWords(program, words, sources);
  return r === COMPLETE_FILES ? r : r.map((c) => c.name);
}

describe('completeWords', () => {
  it.each([
    ['subcommands by prefix', ['dis'], ['disable']],
    ['nested subcommands', ['orphaning-deletion', ''], ['enable', 'disable', 'status']],
    ['contexts for join', ['join', 'm'], ['member1', 'member2']],
    ['contexts for --cluster-context', ['join', 'member1', '--cluster-context', ''], ['host', 'member1', 'member2']],
    ['contexts for a global flag before the command', ['--host-cluster-context', 'h'], ['host']],
    [
      'contexts after --host-cluster-context=',
      ['status', '--host-cluster-context=mem'],
      ['--host-cluster-context=member1', '--host-cluster-context=member2'],
    ],
    ['joined clusters for unjoin', ['unjoin', ''], ['member1']],
    ['joined clusters for rotate-token', ['rotate-token', ''], ['member1']],
    ['contexts after a flag bash split at =', ['status', '--host-cluster-context', '=', 'mem'], ['member1', 'member2']],
    ['served types for enable', ['enable', 'd'], ['deployments.apps']],
    ['enabled types for disable', ['disable', ''], ['deployments.apps', 'secrets']],
    ['enabled types for federate', ['federate', 's'], ['secrets']],
    ['federated types for orphaning-deletion', ['orphaning-deletion', 'status', 'federatedd'], ['federateddeployments']],
    ['nothing for the second argument of federate', ['federate', 'secrets', ''], []],
    ['choices of -o', ['plan', 'web', '-o', ''], ['table', 'json']],
    ['shells', ['completion', ''], ['bash', 'zsh', 'fish']],
    ['no subcommands after a klog verbosity value', ['-v', '2', 'vers'], ['version']],
  ])('completes %s', async (_what, words, expected) => {
    expect(await names(words)).toEqual(expected);
  });

  it('completes every visible subcommand, and not the hidden completion-server', async () => {
    const all = await names(['']);
    expect(all).toEqual(
      expect.arrayContaining([
        'join',
        'unjoin',
        'enable',
        'disable',
        'federate',
        'orphaning-deletion',
        'plan',
        'status',
        'version',
        'completion',
      ]),
    );
    expect(all).not.toContain('completion-server');
  });

  it('completes the flags of a command and the global flags', async () => {
    const flags = await names(['disable', 'x', '--']);
    expect(flags).toEqual(
      expect.arrayContaining(['--keep-ftc', '--delete-crd', '--dry-run', '--kubeconfig', '--host-cluster-context', '--v', '--help']),
    );
    expect(flags).not.toContain('--cluster-admin');
    expect(await names(['join', 'm', '--clu'])).toEqual(['--cluster-context', '--cluster-admin']);
  });

  it('lets the shell complete file names for --kubeconfig and -f', async () => {
    expect(await names(['--kubeconfig', ''])).toBe(COMPLETE_FILES);
    expect(await names(['enable', '-f', ''])).toBe(COMPLETE_FILES);
  });

  it('asks the host named by the words typed so far', async () => {
    asked.length = 0;
    await names(['--kubeconfig', '/tmp/k', 'disable', '--host-cluster-context=host', '--kubefed-namespace', 'fed', '']);
    expect(asked).toEqual([{ kubeconfig: '/tmp/k', hostClusterContext: 'host', kubefedNamespace: 'fed' }]);
  });
});
