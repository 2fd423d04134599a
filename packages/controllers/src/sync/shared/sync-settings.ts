import type { Switch } from '@kubefed/api';

/**
 * Where the control plane sees, for every role of the sync path (KubeFed's `KubeFedConfig`
 * `spec.scope` and the namespace it runs in).
 */
export interface SyncScope {
  /**
   * The control plane's namespace: FederatedTypeConfigs and KubeFedClusters live there, in a
   * Cluster-scoped control plane nothing in it is propagated, and a FederatedNamespace of it never is.
   */
  readonly kubefedNamespace: string;
  /**
   * Scope of the control plane; default `Cluster`. A Namespaced one sees only its own namespace,
   * in the host and in the members, and never syncs cluster-scoped targets (nor Namespaces).
   */
  readonly scope?: 'Cluster' | 'Namespaced' | undefined;
}

/** The periods of the sync path, each documented here once. */
export interface SyncTiming {
  /** How often each sync controller's status writer writes the statuses marked dirty; default 200 ms. */
  readonly statusFlushMs?: number | undefined;
  /**
   * How long a Ready placed cluster may take to report an object's current generation before its
   * status is written without it, the cluster showing `CreationTimedOut` or `UpdateTimedOut`
   * (KubeFed's placeholders after its 30 s dispatch timeout); default 30 s.
   */
  readonly reportTimeoutMs?: number | undefined;
  /** Poll period of the reconciler while member copies are being removed; default 500 ms. */
  readonly removalPollMs?: number | undefined;
  /** Every federated object is reconciled again this often (repairs drift in members); default 5 min, 0 = never. */
  readonly resyncPeriodMs?: number | undefined;
}

/** The KubeFedConfig settings the sync path reads on every job (a change applies at once). */
export interface SyncSettings {
  /** `spec.syncController.adoptResources`; KubeFed's default `Enabled`. */
  readonly adoptResources: Switch;
  /** The `RawResourceStatusCollection` feature gate (with the FTC's `statusCollection`, remote status is reported). */
  readonly remoteStatusCollection: boolean;
  /** FederatedNamespaces may set `pod-security.kubernetes.io/*` labels on members (the KubeFedConfig's `kubefed.io/allow-pod-security-labels`); default false. */
  readonly podSecurityLabels?: boolean | undefined;
}

/** The settings in force when none are given: adoption Enabled, remote status collected. */
export const DEFAULT_SYNC_SETTINGS: SyncSettings = { adoptResources: 'Enabled', remoteStatusCollection: true };
