import { describe, expect, it } from 'vitest';
import {
  applyReplicaOverrides,
  overridesUpToDate,
  placementNeedsUpdate,
  schedulingUpdate,
  type OverrideEntry,
  type SchedulableSpec,
} from './scheduling-update.js';

const replicas = (value: number) => ({ path: '/spec/replicas', value });
const image = { path: '/spec/template/spec/containers/0/image', value: 'nginx:2' };

describe('placementNeedsUpdate', () => {
  it.each<[string, SchedulableSpec, Record<string, number>, boolean]>([
    ['no placement yet', {}, { a: 1 }, true],
    ['same names in another order', { placement: { clusters: [{ name: 'b' }, { name: 'a' }] } }, { a: 1, b: 0 }, false],
    ['a cluster more in the result', { placement: { clusters: [{ name: 'a' }] } }, { a: 1, b: 2 }, true],
    ['a cluster less in the result', { placement: { clusters: [{ name: 'a' }, { name: 'b' }] } }, { a: 3 }, true],
    ['null clusters and an empty result', { placement: { clusters: null } }, {}, false],
  ])('%s → %s', (_title, spec, result, expected) => {
    expect(placementNeedsUpdate(spec, result)).toBe(expected);
  });
});

describe('overridesUpToDate', () => {
  it.each<[string, OverrideEntry[], Record<string, number>, boolean]>([
    [
      'one matching replicas override per cluster',
      [
        { clusterName: 'a', clusterOverrides: [replicas(3), image] },
        { clusterName: 'b', clusterOverrides: [replicas(6)] },
      ],
      { a: 3, b: 6 },
      true,
    ],
    ['a wrong number', [{ clusterName: 'a', clusterOverrides: [replicas(2)] }], { a: 3 }, false],
    ['a missing cluster', [{ clusterName: 'a', clusterOverrides: [replicas(3)] }], { a: 3, b: 0 }, false],
    ['two replicas overrides for one cluster', [{ clusterName: 'a', clusterOverrides: [replicas(3), replicas(3)] }], { a: 3 }, false],
    [
      'a cluster outside the result still overridden',
      [
        { clusterName: 'a', clusterOverrides: [replicas(3)] },
        { clusterName: 'c', clusterOverrides: [replicas(1)] },
      ],
      { a: 3 },
      false,
    ],
    [
      'a cluster outside the result with other overrides only',
      [
        { clusterName: 'a', clusterOverrides: [replicas(3)] },
        { clusterName: 'c', clusterOverrides: [image] },
      ],
      { a: 3 },
      true,
    ],
  ])('%s → %s', (_title, overrides, result, expected) => {
    expect(overridesUpToDate(overrides, result)).toBe(expected);
  });
});

describe('applyReplicaOverrides', () => {
  it.each<[string, OverrideEntry[], Record<string, number>, OverrideEntry[]]>([
    [
      'appends new entries in name order',
      [],
      { b: 6, a: 3 },
      [
        { clusterName: 'a', clusterOverrides: [replicas(3)] },
        { clusterName: 'b', clusterOverrides: [replicas(6)] },
      ],
    ],
    [
      "sets the value of an existing override and keeps the user's other paths",
      [{ clusterName: 'a', clusterOverrides: [image, { op: 'replace', path: '/spec/replicas', value: 1 }] }],
      { a: 4 },
      [{ clusterName: 'a', clusterOverrides: [image, { op: 'replace', path: '/spec/replicas', value: 4 }] }],
    ],
    [
      'appends the replicas override to an entry with other overrides',
      [{ clusterName: 'a', clusterOverrides: [image] }],
      { a: 2 },
      [{ clusterName: 'a', clusterOverrides: [image, replicas(2)] }],
    ],
    [
      'drops the replicas override of a cluster that left the result and keeps its entry',
      [
        { clusterName: 'gone', clusterOverrides: [replicas(5), image] },
        { clusterName: 'x', clusterOverrides: [replicas(5)] },
      ],
      { a: 9 },
      [
        { clusterName: 'gone', clusterOverrides: [image] },
        { clusterName: 'x', clusterOverrides: [] },
        { clusterName: 'a', clusterOverrides: [replicas(9)] },
      ],
    ],
    ['writes 0 for clusters planned 0', [], { a: 0 }, [{ clusterName: 'a', clusterOverrides: [replicas(0)] }]],
  ])('%s', (_title, overrides, result, expected) => {
    const before = structuredClone(overrides);
    expect(applyReplicaOverrides(overrides, result)).toEqual(expected);
    expect(overrides).toEqual(before);
  });

  it('returns the same array when already up to date', () => {
    const overrides = [{ clusterName: 'a', clusterOverrides: [replicas(1)] }];
    expect(applyReplicaOverrides(overrides, { a: 1 })).toBe(overrides);
  });
});

describe('schedulingUpdate', () => {
  it('writes sorted placement including 0-replica clusters and keeps the cluster selector', () => {
    const spec: SchedulableSpec = { template: { spec: {} }, placement: { clusterSelector: { matchLabels: { a: 'b' } } } };
    const update = schedulingUpdate(spec, { m2: 0, m1: 9 });
    expect(update).toMatchObject({ placementChanged: true, overridesChanged: true });
    expect(update.spec).toEqual({
      template: { spec: {} },
      placement: { clusterSelector: { matchLabels: { a: 'b' } }, clusters: [{ name: 'm1' }, { name: 'm2' }] },
      overrides: [
        { clusterName: 'm1', clusterOverrides: [replicas(9)] },
        { clusterName: 'm2', clusterOverrides: [replicas(0)] },
      ],
    });
  });

  it('changes nothing when placement and overrides already match', () => {
    const spec: SchedulableSpec = {
      placement: { clusters: [{ name: 'b' }, { name: 'a' }] },
      overrides: [
        { clusterName: 'a', clusterOverrides: [replicas(3)] },
        { clusterName: 'b', clusterOverrides: [replicas(6), image] },
      ],
    };
    const update = schedulingUpdate(spec, { a: 3, b: 6 });
    expect(update).toEqual({ spec, placementChanged: false, overridesChanged: false });
    expect(update.spec).toBe(spec);
  });

  it('updates only the overrides when the placement is right', () => {
    const spec: SchedulableSpec = {
      placement: { clusters: [{ name: 'a' }] },
      overrides: [{ clusterName: 'a', clusterOverrides: [replicas(3)] }],
    };
    const update = schedulingUpdate(spec, { a: 4 });
    expect(update).toMatchObject({ placementChanged: false, overridesChanged: true });
    expect(update.spec.placement).toBe(spec.placement);
  });
});
