import { describe, expect, it } from 'vitest';
import {
  API_VERSIONS,
  EventComponent,
  FEATURE_GATE_DEFAULTS,
  FeatureGate,
  PropagationStatus,
  RECOVERABLE_PROPAGATION_STATUSES,
} from './constants.js';

describe('constants', () => {
  it('names the sync controller after the lowercase federated kind', () => {
    expect(EventComponent.sync('FederatedDeployment')).toBe('federateddeployment-controller');
  });

  it('lists only known propagation statuses as recoverable', () => {
    const known = new Set<string>(Object.values(PropagationStatus));
    for (const s of RECOVERABLE_PROPAGATION_STATUSES) expect(known.has(s)).toBe(true);
    expect(RECOVERABLE_PROPAGATION_STATUSES.has('AlreadyExists')).toBe(false);
  });

  it('has a default for every feature gate', () => {
    expect(Object.keys(FEATURE_GATE_DEFAULTS).sort()).toEqual(Object.values(FeatureGate).sort());
  });

  it.each([
    ['core', 'core.kubefed.io/v1beta1'],
    ['coreV1alpha1', 'core.kubefed.io/v1alpha1'],
    ['scheduling', 'scheduling.kubefed.io/v1alpha1'],
    ['types', 'types.kubefed.io/v1beta1'],
  ] as const)('spells the %s apiVersion %s', (key, value) => {
    expect(API_VERSIONS[key]).toBe(value);
  });
});
