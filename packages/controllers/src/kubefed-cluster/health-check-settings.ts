import { KUBEFED_CONFIG_DEFAULTS, parseGoDuration } from '@kubefed/api';

/** `KubeFedConfig.spec.clusterHealthCheck`, parsed. */
export interface HealthCheckSettings {
  /** Time between two probes of a cluster; KubeFed default 10 s. */
  readonly periodMs: number;
  /** Timeout of each probe request; KubeFed default 3 s. */
  readonly timeoutMs: number;
  /** KubeFed default 3. */
  readonly failureThreshold: number;
  /** KubeFed default 1. */
  readonly successThreshold: number;
}

/** Where the health controller reads its settings from, at every probe (so changes apply without restart). */
export interface HealthCheckSettingsSource {
  current(): HealthCheckSettings;
  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

const d = KUBEFED_CONFIG_DEFAULTS.clusterHealthCheck;

/** KubeFed's defaults (docs/kubefed-compatibility.md §6.1): period 10 s, timeout 3 s, failureThreshold 3, successThreshold 1. */
export const DEFAULT_HEALTH_CHECK_SETTINGS: HealthCheckSettings = {
  periodMs: parseGoDuration(d.period) ?? 10_000,
  timeoutMs: parseGoDuration(d.timeout) ?? 3_000,
  failureThreshold: d.failureThreshold,
  successThreshold: d.successThreshold,
};

/** A source that never changes (tests, or a process without a KubeFedConfig). */
export function staticHealthCheckSettings(settings: HealthCheckSettings = DEFAULT_HEALTH_CHECK_SETTINGS): HealthCheckSettingsSource {
  return { current: () => settings, onChange: () => () => {} };
}
