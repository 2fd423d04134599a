/**
 * The kube-sim conformance suites against a real kube-apiserver (vitest project `real`,
 * `npm run test:real`; `npm run kube:build` first). One cluster made by `startRealClusters`
 * (kube-apiserver, kube-controller-manager, kube-scheduler, kwok) serves every suite of this file,
 * each suite in namespaces of its own; `KUBE_CONFORMANCE_KUBECONFIG` names another cluster to
 * check instead (its current context), in which case none is started.
 *
 * Left out, because they test kube-sim itself rather than the Kubernetes API:
 * - `sim-control.int.test.ts`: fault injection, history compaction, restart, the kubeconfig
 *   writer, the configured version and zones (a real cluster has no such controls);
 * - `cli.int.test.ts`: the kube-sim process and its flags;
 * - `src/**\/*.int.test.ts`: kube-sim internals, such as the pod capacity of its scheduler.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe } from 'vitest';
import { startRealClusters, type RealClusters } from '@kubefed/testing';
import { authConformance } from './conformance/auth-conformance.js';
import { crdConformance } from './conformance/crd-conformance.js';
import { crudConformance } from './conformance/crud-conformance.js';
import { deleteConformance } from './conformance/delete-conformance.js';
import { discoveryConformance } from './conformance/discovery-conformance.js';
import { kubectlConformance } from './conformance/kubectl-conformance.js';
import { patchConformance } from './conformance/patch-conformance.js';
import { watchConformance } from './conformance/watch-conformance.js';
import { workloadsConformance } from './conformance/workloads-conformance.js';
import { kubeconfigSubstrate } from './support/conformance-target.js';

const external = process.env['KUBE_CONFORMANCE_KUBECONFIG'];

describe(`conformance against ${external === undefined || external === '' ? 'kube-apiserver (startRealClusters)' : external}`, () => {
  let real: RealClusters | undefined;
  let kubeconfigYaml = '';
  beforeAll(async () => {
    if (external !== undefined && external !== '') {
      kubeconfigYaml = await readFile(external, 'utf8');
      return;
    }
    real = await startRealClusters({ names: ['conformance'], nodes: 2 });
    kubeconfigYaml = real.kubeconfigYaml;
  });
  afterAll(async () => {
    await real?.stop();
  });

  const substrate = kubeconfigSubstrate(() => kubeconfigYaml);
  crudConformance(substrate);
  deleteConformance(substrate);
  patchConformance(substrate);
  watchConformance(substrate);
  discoveryConformance(substrate);
  authConformance(substrate);
  crdConformance(substrate);
  kubectlConformance(substrate);
  workloadsConformance(substrate);
});
