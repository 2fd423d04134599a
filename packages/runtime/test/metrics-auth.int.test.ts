import { startCluster, type SimCluster } from '@kubefed/kube-sim';
import { afterAll, beforeAll, describe } from 'vitest';
import { metricsAuthSuite } from './metrics-auth-suite.js';

describe('secure metrics (KubeMetricsAuthorizer) against kube-sim', () => {
  let sim: SimCluster | undefined;
  beforeAll(async () => {
    sim = await startCluster({ name: 'runtime-metrics-auth' });
  });
  afterAll(async () => {
    await sim?.stop();
  });
  metricsAuthSuite(() => sim?.kubeconfigYaml() ?? '');
});
