/**
 * @kubefed/kube-sim: an embedded Kubernetes-API-compatible server for tests and the local demo.
 * Several simulated clusters run in one process, each on its own 127.0.0.1 port, speaking the
 * Kubernetes REST conventions closely enough for kubectl and client libraries.
 *
 * Start reading at `cluster.ts` (startCluster), then `server/api-handler.ts` (HTTP routing) and
 * `resources/rest-ops.ts` (the REST semantics over `store/object-store.ts`).
 */
export { startCluster, buildKubeconfig, ClusterStartError, SimControlError } from './cluster.js';
export type { StartClusterOptions, SimCluster } from './cluster.js';
export { KubeSimError, StatusError } from './util/status-error.js';
/** A CA and a 127.0.0.1/localhost server certificate, for TLS listeners in tests (e.g. a server posing as a member). */
export { generateClusterPki, type ClusterPki } from './pki.js';
