/**
 * KubeFedConfig → the settings the controller manager runs with, as pure functions
 * (docs/kubefed-compatibility.md §1.2, §4.0, §6.1, §6.2).
 */
import {
  ALLOW_POD_SECURITY_LABELS_ANNOTATION,
  API_VERSIONS,
  defaultKubeFedConfig,
  KINDS,
  KUBEFED_CONFIG_NAME,
  parseGoDuration,
  resolveFeatureGates,
  validateKubeFedConfig,
  type FeatureGate,
  type KubeFedConfig,
  type ResourceLockType,
  type ValidationIssue,
} from '@kubefed/api';

/** A valid KubeFedConfig with every duration parsed to milliseconds. */
export interface KubeFedConfigSettings {
  readonly scope: 'Cluster' | 'Namespaced';
  readonly controllerDuration: {
    readonly availableDelayMs: number;
    readonly unavailableDelayMs: number;
    readonly cacheSyncTimeoutMs: number;
  };
  readonly leaderElect: {
    readonly leaseDurationMs: number;
    readonly renewDeadlineMs: number;
    readonly retryPeriodMs: number;
    /** Which object(s) hold the leader record (default `configmaps`, as KubeFed's webhook). */
    readonly resourceLock: ResourceLockType;
  };
  readonly featureGates: Readonly<Record<FeatureGate, boolean>>;
  readonly clusterHealthCheck: {
    readonly periodMs: number;
    readonly timeoutMs: number;
    readonly failureThreshold: number;
    readonly successThreshold: number;
  };
  readonly syncController: {
    readonly maxConcurrentReconciles: number;
    readonly adoptResources: boolean;
    /** The KubeFedConfig's `kubefed.io/allow-pod-security-labels` annotation is `"true"`; absent means false. */
    readonly allowPodSecurityLabels?: boolean;
  };
  readonly statusController: { readonly maxConcurrentReconciles: number };
}

/** Outcome of {@link resolveKubeFedConfig}. */
export type ResolvedKubeFedConfig =
  { readonly ok: true; readonly settings: KubeFedConfigSettings } | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * The default KubeFedConfig object the controller manager creates when none exists: named
 * `kubefed` in the kubefed namespace, `spec.scope` as given (default `Cluster`, as the chart
 * writes) and every default of §6.1 written out (there is no mutating webhook to fill them).
 */
export function defaultKubeFedConfigObject(namespace: string, scope: 'Cluster' | 'Namespaced' = 'Cluster'): KubeFedConfig {
  return defaultKubeFedConfig({
    apiVersion: API_VERSIONS.core,
    kind: KINDS.kubeFedConfig,
    metadata: { name: KUBEFED_CONFIG_NAME, namespace },
    spec: { scope },
  });
}

const ms = (s: string | undefined): number => parseGoDuration(s ?? '') ?? 0;

/**
 * Defaults (as the mutating webhook would, §6.1) then validates (§6.2) a KubeFedConfig object as
 * read from the API, and parses it into settings. Invalid → every issue with its field path.
 */
export function resolveKubeFedConfig(obj: unknown): ResolvedKubeFedConfig {
  const result = validateKubeFedConfig(defaultIfObject(obj));
  if (!result.ok) return { ok: false, issues: result.issues };
  const spec = result.value.spec;
  const hc = spec.clusterHealthCheck ?? {};
  const cd = spec.controllerDuration ?? {};
  const le = spec.leaderElect ?? {};
  return {
    ok: true,
    settings: {
      scope: spec.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
      controllerDuration: {
        availableDelayMs: ms(cd.availableDelay),
        unavailableDelayMs: ms(cd.unavailableDelay),
        cacheSyncTimeoutMs: ms(cd.cacheSyncTimeout),
      },
      leaderElect: {
        leaseDurationMs: ms(le.leaseDuration),
        renewDeadlineMs: ms(le.renewDeadline),
        retryPeriodMs: ms(le.retryPeriod),
        // Validation admitted only RESOURCE_LOCKS, and defaulting filled it in.
        resourceLock: le.resourceLock as ResourceLockType,
      },
      featureGates: resolveFeatureGates(spec),
      clusterHealthCheck: {
        periodMs: ms(hc.period),
        timeoutMs: ms(hc.timeout),
        failureThreshold: hc.failureThreshold ?? 3,
        successThreshold: hc.successThreshold ?? 1,
      },
      syncController: {
        maxConcurrentReconciles: spec.syncController?.maxConcurrentReconciles ?? 1,
        adoptResources: (spec.syncController?.adoptResources ?? 'Enabled') === 'Enabled',
        allowPodSecurityLabels: result.value.metadata.annotations?.[ALLOW_POD_SECURITY_LABELS_ANNOTATION] === 'true',
      },
      statusController: { maxConcurrentReconciles: spec.statusController?.maxConcurrentReconciles ?? 1 },
    },
  };
}

/** Applies §6.1 defaults when `obj` has the KubeFedConfig shape; otherwise returns it unchanged (validation then names the problem). */
function defaultIfObject(obj: unknown): unknown {
  if (typeof obj !== 'object' || obj === null) return obj;
  const spec = (obj as { spec?: unknown }).spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return obj;
  const s = spec as Record<string, unknown>;
  const block = (k: string): Record<string, unknown> | undefined => {
    const v = s[k];
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  };
  // Only fill blocks that are objects (or absent): a wrongly typed block must stay for validation to report it.
  for (const k of ['controllerDuration', 'leaderElect', 'clusterHealthCheck', 'syncController', 'statusController']) {
    if (s[k] !== undefined && block(k) === undefined) return obj;
  }
  if (s.featureGates !== undefined && !Array.isArray(s.featureGates)) return obj;
  const defaulted = defaultKubeFedConfig({ metadata: {}, spec: s }).spec;
  return { ...obj, spec: defaulted };
}
