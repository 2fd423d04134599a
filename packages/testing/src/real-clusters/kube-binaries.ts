import { access, constants, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../managed-process.js';
import { RealClusterStartError } from './real-cluster-error.js';

/** Absolute paths of the five executables `npm run kube:build` builds. */
export interface KubeBinaries {
  /** e.g. `v1.34.12`, the `k8s.io/kubernetes` version pinned in tools/kube/go.mod. */
  readonly version: string;
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kwok: string;
}

/**
 * The binaries of `npm run kube:build` (tools/kube/build.sh): in `binDir` when given, else in
 * `${KUBEFED_KUBE_CACHE:-~/.cache/kubefed-kube}/<k8s version>/bin`, the version being the one
 * tools/kube/go.mod pins.
 *
 * @throws RealClusterStartError naming what is missing and saying to run `npm run kube:build`.
 */
export async function findKubeBinaries(binDir?: string): Promise<KubeBinaries> {
  const goMod = await readFile(join(REPO_ROOT, 'tools/kube/go.mod'), 'utf8');
  const version = /^\s*(?:require\s+)?k8s\.io\/kubernetes\s+(v\S+)/m.exec(goMod)?.[1];
  if (version === undefined) throw new RealClusterStartError('tools/kube/go.mod pins no k8s.io/kubernetes version');
  const dir = binDir ?? join(process.env['KUBEFED_KUBE_CACHE'] ?? join(homedir(), '.cache', 'kubefed-kube'), version, 'bin');
  const binaries = {
    version,
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kwok: join(dir, 'kwok'),
  };
  const missing: string[] = [];
  for (const path of [binaries.etcd, binaries.kubeApiserver, binaries.kubeControllerManager, binaries.kubeScheduler, binaries.kwok]) {
    await access(path, constants.X_OK).catch(() => missing.push(path));
  }
  if (missing.length > 0) {
    throw new RealClusterStartError(`Kubernetes ${version} binaries are missing (${missing.join(', ')}): run npm run kube:build`);
  }
  return binaries;
}
