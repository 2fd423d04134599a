import { describe, expect, it } from 'vitest';
import { normalizeKlogFlags } from './klog-flags.js';

describe('normalizeKlogFlags', () => {
  it.each([
    [['--logtostderr', 'version'], ['version']],
    [
      ['--logtostderr=false', '--alsologtostderr', 'join', 'm1'],
      ['join', 'm1'],
    ],
    [['--vmodule', 'sync=4', '--v=2'], ['--v=2']],
    [['--vmodule=sync=4', 'version'], ['version']],
    [['--log_dir', '/tmp/logs', '--log-file=/tmp/x.log', 'version'], ['version']],
    [['--skip-headers', '--skip_log_headers', '--stderrthreshold', 'ERROR', 'version'], ['version']],
    [
      ['--host_cluster_context', 'host', 'version'],
      ['--host-cluster-context', 'host', 'version'],
    ],
    [['--kubefed_namespace=fed_ns'], ['--kubefed-namespace=fed_ns']],
    [
      ['--kubeconfig', '/tmp/my_config', '-v', '2'],
      ['--kubeconfig', '/tmp/my_config', '-v', '2'],
    ],
    [
      ['federate', '-f', '-', '--', '--logtostderr', '--a_b'],
      ['federate', '-f', '-', '--', '--logtostderr', '--a_b'],
    ],
  ])('reads %j as %j', (argv, expected) => {
    expect(normalizeKlogFlags(argv).argv).toEqual(expected);
  });

  it('names every removed and renamed flag in one line', () => {
    expect(normalizeKlogFlags(['--logtostderr', '--v=3', '--vmodule=x=2', '--host_cluster_context', 'host']).deprecation).toBe(
      `deprecated flags: --logtostderr, --vmodule ignored (klog's log file, header and module flags have no effect here); ` +
        'read --host_cluster_context as --host-cluster-context (flag names use "-")',
    );
  });

  it('has nothing to say about a command line without them', () => {
    expect(normalizeKlogFlags(['--v=2', '--host-cluster-context', 'host', 'version']).deprecation).toBeUndefined();
  });
});
