/**
 * The admission table of `kubefed-admission.int.test.ts` against a real kube-apiserver (vitest
 * project `real`; `npm run kube:build` first): the generated CRDs reject and default KubeFed
 * objects there exactly as kube-sim and the zod validators of `@kubefed/api` do.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startRealClusters, type RealClusters } from '@kubefed/testing';
import { federatedObjectBoundsConformance } from './conformance/federated-object-bounds-conformance.js';
import { kubefedAdmissionConformance } from './conformance/kubefed-admission-conformance.js';
import { kubeconfigSubstrate } from './support/conformance-target.js';

describe('KubeFed admission rules on kube-apiserver (startRealClusters)', () => {
  let real: RealClusters | undefined;
  let kubeconfigYaml = '';
  beforeAll(async () => {
    real = await startRealClusters({ names: ['admission'], nodes: 1 });
    kubeconfigYaml = real.kubeconfigYaml;
  });
  afterAll(async () => {
    await real?.stop();
  });

  kubefedAdmissionConformance(kubeconfigSubstrate(() => kubeconfigYaml));
  federatedObjectBoundsConformance(kubeconfigSubstrate(() => kubeconfigYaml));
});
