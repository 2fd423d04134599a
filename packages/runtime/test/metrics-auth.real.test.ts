/** The secure metrics cases of `metrics-auth-suite.ts` against a real kube-apiserver (vitest project `real`; `npm run kube:build` first). */
import { startRealClusters, type RealClusters } from '@kubefed/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { metricsAuthSuite } from './metrics-auth-suite.js';

describe('secure metrics (KubeMetricsAuthorizer) against kube-apiserver (startRealClusters)', () => {
  let real: RealClusters | undefined;
  beforeAll(async () => {
    real = await startRealClusters({ names: ['metrics'], nodes: 1 });
  });
  afterAll(async () => {
    await real?.stop();
  });
  metricsAuthSuite(() => real?.kubeconfigYaml ?? '');
});
