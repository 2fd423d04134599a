import { ApiError, ConfigError } from '@kubefed/client';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AlreadyJoinedError, JoinStepError, UnjoinError } from './errors.js';
import { Output, formatError, levelForVerbosity, renderYamlDocuments } from './output.js';

const request = {
  verb: 'create',
  resource: 'serviceaccounts',
  name: 'member1-host',
  namespace: 'kube-federation-system',
  cluster: 'member1',
};

describe('formatError', () => {
  it.each([
    [
      'a join step failure with the cause and a network hint',
      new JoinStepError(
        'member1',
        'create service account kube-federation-system/member1-host in member1',
        ApiError.fromNetworkError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), request),
        { hint: 'check that the API server of cluster "member1" is reachable from here (kubectl --context <context> version)' },
      ),
      'Error: join member1: step "create service account kube-federation-system/member1-host in member1" failed: create serviceaccounts "member1-host" in namespace "kube-federation-system" on cluster "member1": NetworkError: connect ECONNREFUSED 127.0.0.1:1\n' +
        'hint: check that the API server of cluster "member1" is reachable from here (kubectl --context <context> version)\n',
    ],
    [
      'what could not be rolled back',
      new JoinStepError('m', 'create x', new Error('boom'), { rollbackFailures: ['namespace ns in m: Forbidden'] }),
      'Error: join m: step "create x" failed: boom; could not undo: namespace ns in m: Forbidden\n',
    ],
    [
      'an existing join naming every object',
      new AlreadyJoinedError('m', ['service account ns/m-h in m', 'KubeFedCluster ns/m in h']),
      'Error: join m: already exists: service account ns/m-h in m, KubeFedCluster ns/m in h\n' +
        'hint: run "kubefedctl unjoin m" first, or re-run join with --error-on-existing=false to update what exists and create what is missing\n',
    ],
    [
      'a Forbidden API error with a permission hint',
      ApiError.fromResponse({ code: 403, body: JSON.stringify({ kind: 'Status', reason: 'Forbidden', message: 'nope' }), request }),
      'Error: create serviceaccounts "member1-host" in namespace "kube-federation-system" on cluster "member1": Forbidden: nope\n' +
        'hint: the user of the context for cluster "member1" lacks permission for this; use a context with cluster-admin rights\n',
    ],
    [
      'a kubeconfig error with a kubeconfig hint',
      new ConfigError('kubeconfig has no context "x"'),
      'Error: kubeconfig has no context "x"\nhint: check the kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config) and the context names (kubectl config get-contexts)\n',
    ],
    ['a multi-line message on one line', new UnjoinError('first\n  second'), 'Error: first second\n'],
    ['a thrown string', 'plain', 'Error: plain\n'],
  ])('prints %s', (_what, err, expected) => {
    expect(formatError(err, { verbose: false })).toBe(expected);
  });

  it('adds the stack and causes only when verbose', () => {
    const err = new JoinStepError('m', 'create x', new Error('inner cause'));
    expect(formatError(err, { verbose: false })).not.toContain('    at ');
    const verbose = formatError(err, { verbose: true });
    expect(verbose).toContain('    at ');
    expect(verbose).toContain('caused by: Error: inner cause');
  });
});

describe('renderYamlDocuments', () => {
  it('renders one commented document per object that parses back to the objects', () => {
    const text = renderYamlDocuments([
      { comment: 'member cluster "m"', object: { kind: 'Namespace', metadata: { name: 'ns' } } },
      { comment: 'host cluster "h"\nsecond line', object: { kind: 'Secret', metadata: { name: 's' } } },
    ]);
    expect(text).toContain('---\n# member cluster "m"\nkind: Namespace');
    expect(text).toContain('# host cluster "h"\n# second line\nkind: Secret');
    expect(parseAllDocuments(text).map((d) => d.toJSON())).toEqual([
      { kind: 'Namespace', metadata: { name: 'ns' } },
      { kind: 'Secret', metadata: { name: 's' } },
    ]);
  });
});

describe('Output', () => {
  it('sends results to stdout and progress, warnings and debug (only when verbose) to stderr', () => {
    const lines = { out: '', err: '' };
    const io = { stdout: (s: string) => void (lines.out += s), stderr: (s: string) => void (lines.err += s), env: {} };
    const quiet = new Output(io);
    quiet.info('done');
    quiet.progress('waiting');
    quiet.warn('careful');
    quiet.debug('hidden');
    quiet.trace('hidden');
    new Output(io, 'debug').debug('shown');
    new Output(io, 'debug').trace('hidden');
    new Output(io, 'trace').trace('traced');
    expect(lines).toEqual({ out: 'done\n', err: 'waiting\nwarning: careful\ndebug: shown\ntrace: traced\n' });
  });

  it.each([
    [0, 'info'],
    [1, 'info'],
    [2, 'debug'],
    [5, 'debug'],
    [6, 'trace'],
    [10, 'trace'],
  ] as const)('maps klog verbosity %i to level %s', (v, level) => {
    expect(levelForVerbosity(v)).toBe(level);
  });
});
