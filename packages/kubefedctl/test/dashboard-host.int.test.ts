// kubefedctl dashboard against a host without the KubeFed CRDs: it exits 1 naming what is missing
// instead of serving a page whose watches wait forever.
import { startSimClusters } from '@kubefed/testing';
import { describe, expect, it } from 'vitest';
import { run, type RunIo } from '../src/cli.js';

describe('kubefedctl dashboard on a host without KubeFed', () => {
  it('exits 1 naming the KubeFed resources the host does not serve, with a hint', async () => {
    await using sim = await startSimClusters(['host']);
    let stdout = '';
    let stderr = '';
    const io: RunIo = { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: { HOME: '/nonexistent-home' } };
    const code = await run(['dashboard', '--kubeconfig', sim.kubeconfigPath, '--port', '0'], io);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `Error: the host cluster at ${sim.get('host').url} does not serve kubefedclusters.core.kubefed.io, federatedtypeconfigs.core.kubefed.io, replicaschedulingpreferences.scheduling.kubefed.io`,
    );
    expect(stderr).toContain('hint: install the KubeFed CRDs on the host');
    expect(stdout).not.toContain('http://');
  });
});
