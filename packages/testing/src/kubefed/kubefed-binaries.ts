import { access, constants, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../managed-process.js';
import { KubeFedStartError } from './kubefed-start-error.js';

/** What `npm run kubefed:build` (tools/kubefed/build.sh) puts into its cache, as absolute paths. */
export interface KubeFedBinaries {
  /** e.g. `v0.10.0`, the `sigs.k8s.io/kubefed` version pinned in tools/kubefed/go.mod. */
  readonly version: string;
  /** KubeFed's `cmd/controller-manager`. */
  readonly controllerManager: string;
  /** KubeFed's `cmd/webhook`. */
  readonly webhook: string;
  /** KubeFed's `cmd/kubefedctl`. */
  readonly kubefedctl: string;
  /** tools/kubefed/version-oracle: KubeFed's template and override hashes and member version strings. */
  readonly versionOracle: string;
  /** The CRDs of KubeFed's own types, from its chart (`charts/kubefed/charts/controllermanager/crds/crds.yaml`). */
  readonly coreCrds: string;
  /** The CRDs of the default federated types (`charts/kubefed/crds/crds.yaml`). */
  readonly federatedTypeCrds: string;
  /** The FederatedTypeConfigs of the default types (`charts/kubefed/templates/federatedtypeconfig.yaml`). */
  readonly federatedTypeConfigs: string;
}

/**
 * The binaries and chart files of `npm run kubefed:build`: in `dir` when given (the directory
 * holding `bin/` and `chart/`), else in `${KUBEFED_KUBE_CACHE:-~/.cache/kubefed-kube}/kubefed-<version>`,
 * the version being the one tools/kubefed/go.mod pins.
 *
 * @throws KubeFedStartError naming what is missing and saying to run `npm run kubefed:build`.
 */
export async function findKubeFedBinaries(dir?: string): Promise<KubeFedBinaries> {
  const goMod = await readFile(join(REPO_ROOT, 'tools/kubefed/go.mod'), 'utf8');
  const version = /^\s*(?:require\s+)?sigs\.k8s\.io\/kubefed\s+(v\S+)/m.exec(goMod)?.[1];
  if (version === undefined) throw new KubeFedStartError('tools/kubefed/go.mod pins no sigs.k8s.io/kubefed version');
  const root = dir ?? join(process.env['KUBEFED_KUBE_CACHE'] ?? join(homedir(), '.cache', 'kubefed-kube'), `kubefed-${version}`);
  const binaries: KubeFedBinaries = {
    version,
    controllerManager: join(root, 'bin', 'controller-manager'),
    webhook: join(root, 'bin', 'webhook'),
    kubefedctl: join(root, 'bin', 'kubefedctl'),
    versionOracle: join(root, 'bin', 'version-oracle'),
    coreCrds: join(root, 'chart', 'core-crds.yaml'),
    federatedTypeCrds: join(root, 'chart', 'federated-type-crds.yaml'),
    federatedTypeConfigs: join(root, 'chart', 'federatedtypeconfigs.yaml'),
  };
  const missing: string[] = [];
  for (const path of [binaries.controllerManager, binaries.webhook, binaries.kubefedctl, binaries.versionOracle]) {
    await access(path, constants.X_OK).catch(() => missing.push(path));
  }
  for (const path of [binaries.coreCrds, binaries.federatedTypeCrds, binaries.federatedTypeConfigs]) {
    await access(path, constants.R_OK).catch(() => missing.push(path));
  }
  if (missing.length > 0) {
    throw new KubeFedStartError(`KubeFed ${version} is not built (missing ${missing.join(', ')}): run npm run kubefed:build`);
  }
  return binaries;
}
