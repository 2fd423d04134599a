import { describe, expect, it } from 'vitest';
import { defaultKubeFedConfigObject, resolveKubeFedConfig } from './kubefed-config-settings.js';
import { KubeFedConfigSource } from './kubefed-config-source.js';

const ns = 'kube-federation-system';
const withSpec = (spec: unknown) => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedConfig',
  metadata: { name: 'kubefed', namespace: ns },
  spec,
});

describe('defaultKubeFedConfigObject', () => {
  it('writes scope Cluster and every default of the mutating webhook', () => {
    expect(defaultKubeFedConfigObject(ns)).toEqual({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedConfig',
      metadata: { name: 'kubefed', namespace: ns },
      spec: {
        scope: 'Cluster',
        controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
        leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
        featureGates: [
          { name: 'PushReconciler', configuration: 'Enabled' },
          { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
          { name: 'SchedulerPreferences', configuration: 'Enabled' },
        ],
        clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
        syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled' },
        statusController: { maxConcurrentReconciles: 1 },
      },
    });
  });
});

describe('resolveKubeFedConfig', () => {
  it('parses the default config into milliseconds', () => {
    const r = resolveKubeFedConfig(defaultKubeFedConfigObject(ns));
    expect(r.ok && r.settings.clusterHealthCheck).toEqual({ periodMs: 10_000, timeoutMs: 3_000, failureThreshold: 3, successThreshold: 1 });
    expect(r.ok && r.settings.controllerDuration).toEqual({
      availableDelayMs: 20_000,
      unavailableDelayMs: 60_000,
      cacheSyncTimeoutMs: 300_000,
    });
    expect(r.ok && r.settings.featureGates).toEqual({
      PushReconciler: true,
      RawResourceStatusCollection: true,
      SchedulerPreferences: true,
    });
  });

  it('fills missing blocks with defaults before validating, as the mutating webhook does', () => {
    const r = resolveKubeFedConfig(withSpec({ scope: 'Namespaced', clusterHealthCheck: { period: '200ms' } }));
    expect(r.ok).toBe(true);
    expect(r.ok && r.settings.scope).toBe('Namespaced');
    expect(r.ok && r.settings.clusterHealthCheck).toEqual({ periodMs: 200, timeoutMs: 3_000, failureThreshold: 3, successThreshold: 1 });
  });

  it.each<[string, unknown, string]>([
    ['a missing scope', {}, 'spec.scope'],
    ['an unknown scope', { scope: 'World' }, 'spec.scope'],
    ['a zero period', { scope: 'Cluster', clusterHealthCheck: { period: '0s' } }, 'spec.clusterHealthCheck.period'],
    ['a malformed timeout', { scope: 'Cluster', clusterHealthCheck: { timeout: 'soon' } }, 'spec.clusterHealthCheck.timeout'],
    [
      'a negative failure threshold',
      { scope: 'Cluster', clusterHealthCheck: { failureThreshold: -1 } },
      'spec.clusterHealthCheck.failureThreshold',
    ],
    [
      'a threshold that is not a number',
      { scope: 'Cluster', clusterHealthCheck: { successThreshold: 'one' } },
      'spec.clusterHealthCheck.successThreshold',
    ],
    [
      'a lease shorter than the renew deadline',
      { scope: 'Cluster', leaderElect: { leaseDuration: '5s' } },
      'spec.leaderElect.leaseDuration',
    ],
    [
      'an unknown feature gate (path in the defaulted, sorted list)',
      { scope: 'Cluster', featureGates: [{ name: 'Teleport', configuration: 'Enabled' }] },
      'spec.featureGates[3].name',
    ],
    ['a block of the wrong type', { scope: 'Cluster', clusterHealthCheck: 'fast' }, 'spec.clusterHealthCheck'],
  ])('rejects %s, naming the field', (_title, spec, path) => {
    const r = resolveKubeFedConfig(withSpec(spec));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => i.path)).toContain(path);
  });
});

describe('KubeFedConfigSource', () => {
  it('starts with the defaults, applies a valid change and notifies once', () => {
    const source = new KubeFedConfigSource(ns);
    const seen: number[] = [];
    source.onChange((s) => seen.push(s.clusterHealthCheck.periodMs));
    expect(source.current().clusterHealthCheck.periodMs).toBe(10_000);
    expect(source.apply(withSpec({ scope: 'Cluster', clusterHealthCheck: { period: '1s' } }))).toEqual({ applied: true, changed: true });
    expect(source.apply(withSpec({ scope: 'Cluster', clusterHealthCheck: { period: '1s' } }))).toEqual({ applied: true, changed: false });
    expect(seen).toEqual([1000]);
  });

  it('keeps the previous settings when a config is invalid', () => {
    const source = new KubeFedConfigSource(ns);
    source.apply(withSpec({ scope: 'Cluster', clusterHealthCheck: { period: '2s' } }));
    const r = source.apply(withSpec({ scope: 'Cluster', clusterHealthCheck: { period: '-1s' } }));
    expect(r.applied).toBe(false);
    expect(source.current().clusterHealthCheck.periodMs).toBe(2000);
  });
});
