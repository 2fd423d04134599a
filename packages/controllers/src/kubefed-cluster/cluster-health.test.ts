import type { ClusterCondition, KubeFedClusterStatus } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import {
  applyThresholds,
  firstHistory,
  formatKubeTime,
  joinScopeProblem,
  probeConditions,
  probedStatus,
  statusNeedsWrite,
  topologyFromNodes,
  type HealthHistory,
  type ProbeResult,
} from './cluster-health.js';

const T0 = '2026-11-21T10:00:00Z';
const T1 = '2026-11-21T10:00:10Z';
const T2 = '2026-11-21T10:00:20Z';

const ready = (t: string): KubeFedClusterStatus => probedStatus({ result: { kind: 'ready' }, probeTime: t });
const notReady = (t: string): KubeFedClusterStatus => probedStatus({ result: { kind: 'notReady' }, probeTime: t });
const offline = (t: string): KubeFedClusterStatus =>
  probedStatus({ result: { kind: 'unreachable', error: 'connection refused' }, probeTime: t });
const thresholds = { failureThreshold: 3, successThreshold: 1 };

const brief = (cs: readonly ClusterCondition[]): string[] => cs.map((c) => `${c.type}=${c.status}`);

describe('probeConditions', () => {
  it.each<[string, ProbeResult, Partial<ClusterCondition>[]]>([
    [
      'no client could be built',
      { kind: 'malformed' },
      [{ type: 'ConfigMalformed', status: 'True', reason: 'ClusterConfigMalformed', message: "cluster's configuration may be malformed" }],
    ],
    [
      '/healthz failed',
      { kind: 'unreachable', error: 'dial tcp: connection refused' },
      [
        {
          type: 'Offline',
          status: 'True',
          reason: 'ClusterNotReachable',
          message: 'cluster is not reachable: dial tcp: connection refused',
        },
      ],
    ],
    [
      '/healthz answered without ok',
      { kind: 'notReady' },
      [
        { type: 'Ready', status: 'False', reason: 'ClusterNotReady', message: '/healthz responded without ok' },
        { type: 'Offline', status: 'False', reason: 'ClusterReachable', message: 'cluster is reachable' },
      ],
    ],
    [
      '/healthz answered ok',
      { kind: 'ready' },
      [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '/healthz responded with ok' }],
    ],
    [
      'the token Secret is bound to another cluster (nothing was probed)',
      { kind: 'secretNotBound', message: 'secret kf/member1-x is bound to cluster member1, not to evil' },
      [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ClusterSecretNotBound',
          message: 'secret kf/member1-x is bound to cluster member1, not to evil',
        },
      ],
    ],
    [
      'the cluster was joined for another scope (nothing was probed)',
      { kind: 'scopeMismatch', message: 'cluster member1 was joined for scope Namespaced' },
      [{ type: 'Ready', status: 'False', reason: 'JoinScopeMismatch', message: 'cluster member1 was joined for scope Namespaced' }],
    ],
  ])('writes the reference conditions when %s', (_title, result, expected) => {
    const conditions = probeConditions(result, T0);
    expect(conditions).toEqual(expected.map((e) => ({ ...e, lastProbeTime: T0, lastTransitionTime: T0 })));
  });
});

describe('applyThresholds (failureThreshold 3, successThreshold 1)', () => {
  it.each<[string, HealthHistory | undefined, KubeFedClusterStatus, string[], number, string]>([
    ['first probe is published as is', undefined, offline(T1), ['Offline=True'], 1, T1],
    ['prev Ready run 2, probe NotReady: stays Ready', { status: ready(T0), resultRun: 2 }, notReady(T1), ['Ready=True'], 3, T0],
    ['prev Ready run 3, probe NotReady: flips', { status: ready(T0), resultRun: 3 }, notReady(T1), ['Ready=False', 'Offline=False'], 1, T1],
    ['prev Ready run 1, probe Offline: stays Ready', { status: ready(T0), resultRun: 1 }, offline(T1), ['Ready=True'], 2, T0],
    ['prev Ready run 5, probe Offline: flips at once', { status: ready(T0), resultRun: 5 }, offline(T1), ['Offline=True'], 1, T1],
    ['prev NotReady run 1, probe Ready: flips', { status: notReady(T0), resultRun: 1 }, ready(T1), ['Ready=True'], 1, T1],
    ['prev Offline run 1, probe Ready: flips', { status: offline(T0), resultRun: 1 }, ready(T1), ['Ready=True'], 1, T1],
    ['prev Ready run 1, probe Ready: transition time kept', { status: ready(T0), resultRun: 1 }, ready(T1), ['Ready=True'], 2, T0],
    [
      'prev Offline run 1, probe Offline: previous conditions kept',
      { status: offline(T0), resultRun: 1 },
      offline(T1),
      ['Offline=True'],
      2,
      T0,
    ],
    [
      'prev Offline run 3, probe NotReady: new conditions, old transition time',
      { status: offline(T0), resultRun: 3 },
      notReady(T1),
      ['Ready=False', 'Offline=False'],
      4,
      T0,
    ],
  ])('%s', (_title, previous, probed, expected, run, transition) => {
    const next = applyThresholds(previous, probed, thresholds);
    expect(brief(next.status.conditions)).toEqual(expected);
    expect(next.resultRun).toBe(run);
    for (const c of next.status.conditions) {
      expect(c.lastProbeTime).toBe(T1);
      expect(c.lastTransitionTime).toBe(transition);
    }
  });

  it('flips a fresh Ready cluster only on the third failed probe', () => {
    let h = applyThresholds(undefined, ready(T0), thresholds);
    const seen: string[][] = [];
    for (const t of [T1, T2, '2026-11-21T10:00:30Z']) {
      h = applyThresholds(h, offline(t), thresholds);
      seen.push(brief(h.status.conditions));
    }
    expect(seen).toEqual([['Ready=True'], ['Ready=True'], ['Offline=True']]);
    expect(h.status.conditions[0]?.lastTransitionTime).toBe('2026-11-21T10:00:30Z');
  });

  it('takes kubernetesVersion from the latest probe even while Ready is held', () => {
    const prev = { status: probedStatus({ result: { kind: 'ready' }, probeTime: T0, kubernetesVersion: 'v1.31.0' }), resultRun: 1 };
    const next = applyThresholds(prev, offline(T1), thresholds);
    expect(brief(next.status.conditions)).toEqual(['Ready=True']);
    expect(next.status.kubernetesVersion).toBeUndefined();
  });
});

describe('firstHistory', () => {
  it.each<[string, KubeFedClusterStatus | undefined, KubeFedClusterStatus, string]>([
    ['no stored status', undefined, ready(T1), T1],
    ['stored with the same readiness keeps its transition time', ready(T0), ready(T1), T0],
    ['stored with other readiness takes the probe time', offline(T0), ready(T1), T1],
  ])('%s', (_title, stored, probed, transition) => {
    const h = firstHistory(stored, probed);
    expect(h.resultRun).toBe(1);
    expect(h.status.conditions[0]?.lastTransitionTime).toBe(transition);
    expect(h.status.conditions[0]?.lastProbeTime).toBe(T1);
  });
});

describe('probedStatus', () => {
  it.each<[string, ProbeResult, object]>([
    ['ready', { kind: 'ready' }, { kubernetesVersion: 'v1.31.0', region: 'eu', zones: ['eu-a'] }],
    ['notReady', { kind: 'notReady' }, { region: 'eu', zones: ['eu-a'] }],
    ['unreachable', { kind: 'unreachable', error: 'x' }, { region: 'eu', zones: ['eu-a'] }],
  ])('sets kubernetesVersion only when %s is ready', (_k, result, expected) => {
    const s = probedStatus({ result, probeTime: T0, kubernetesVersion: 'v1.31.0', topology: { region: 'eu', zones: ['eu-a'] } });
    const { conditions: _c, ...rest } = s;
    expect(rest).toEqual(expected);
  });
});

describe('topologyFromNodes', () => {
  const node = (labels: Record<string, string>) => ({ metadata: { labels } });
  it.each<[string, ReturnType<typeof node>[], object]>([
    ['no nodes', [], {}],
    ['unlabelled nodes', [node({})], {}],
    [
      'topology labels, zones sorted and distinct',
      [
        node({ 'topology.kubernetes.io/region': 'eu', 'topology.kubernetes.io/zone': 'eu-b' }),
        node({ 'topology.kubernetes.io/region': 'eu', 'topology.kubernetes.io/zone': 'eu-a' }),
        node({ 'topology.kubernetes.io/region': 'eu', 'topology.kubernetes.io/zone': 'eu-a' }),
      ],
      { region: 'eu', zones: ['eu-a', 'eu-b'] },
    ],
    [
      'legacy labels as fallback',
      [node({ 'failure-domain.beta.kubernetes.io/region': 'us', 'failure-domain.beta.kubernetes.io/zone': 'us-1' })],
      { region: 'us', zones: ['us-1'] },
    ],
    [
      'topology labels win over legacy ones',
      [
        node({
          'topology.kubernetes.io/zone': 'new',
          'failure-domain.beta.kubernetes.io/zone': 'old',
          'failure-domain.beta.kubernetes.io/region': 'r',
        }),
      ],
      { region: 'r', zones: ['new'] },
    ],
    [
      'the first node with a region wins',
      [node({}), node({ 'topology.kubernetes.io/region': 'a' }), node({ 'topology.kubernetes.io/region': 'b' })],
      { region: 'a' },
    ],
  ])('reads %s', (_title, nodes, expected) => {
    expect(topologyFromNodes(nodes)).toEqual(expected);
  });
});

describe('statusNeedsWrite', () => {
  it.each<[string, KubeFedClusterStatus | undefined, KubeFedClusterStatus, boolean]>([
    ['no stored status', undefined, ready(T0), true],
    ['identical status (same second)', ready(T0), ready(T0), false],
    ['probe time moved', ready(T0), applyThresholds({ status: ready(T0), resultRun: 1 }, ready(T1), thresholds).status, true],
    ['version appeared', ready(T0), { ...ready(T0), kubernetesVersion: 'v1.31.0' }, true],
    ['readiness changed', ready(T0), offline(T0), true],
  ])('%s → %s', (_title, stored, desired, expected) => {
    expect(statusNeedsWrite(stored, desired)).toBe(expected);
  });
});

describe('formatKubeTime', () => {
  it.each([
    [Date.UTC(2026, 10, 21, 10, 0, 0, 999), '2026-11-21T10:00:00Z'],
    [Date.UTC(2026, 0, 1), '2026-01-01T00:00:00Z'],
  ])('formats %i as %s', (ms, expected) => {
    expect(formatKubeTime(ms)).toBe(expected);
  });
});

describe('joinScopeProblem', () => {
  const cluster = (joinScope?: string) => ({
    metadata: {
      name: 'member1',
      namespace: 'kf',
      ...(joinScope === undefined ? {} : { annotations: { 'kubefed.io/join-scope': joinScope } }),
    },
  });
  it.each<[string, string | undefined, 'Cluster' | 'Namespaced', string | undefined]>([
    ['no annotation (a KubeFed join) is not checked', undefined, 'Cluster', undefined],
    ['the same scope is fine', 'Namespaced', 'Namespaced', undefined],
    [
      'Namespaced RBAC under a Cluster-scope plane is refused',
      'Namespaced',
      'Cluster',
      'cluster member1 was joined for scope Namespaced (annotation kubefed.io/join-scope of KubeFedCluster kf/member1) but the control plane runs with scope Cluster (KubeFedConfig spec.scope): ' +
        'the RBAC that join granted in the member does not fit, so the cluster is not used; unjoin it and join it again with this control plane',
    ],
    [
      'Cluster RBAC under a Namespaced-scope plane is refused',
      'Cluster',
      'Namespaced',
      'cluster member1 was joined for scope Cluster (annotation kubefed.io/join-scope of KubeFedCluster kf/member1) but the control plane runs with scope Namespaced (KubeFedConfig spec.scope): ' +
        'the RBAC that join granted in the member does not fit, so the cluster is not used; unjoin it and join it again with this control plane',
    ],
    [
      'a value that is no scope is refused',
      'cluster',
      'Cluster',
      'cluster member1 has join scope "cluster" (annotation kubefed.io/join-scope of KubeFedCluster kf/member1), which is neither Cluster nor Namespaced: it is not used',
    ],
  ])('%s', (_title, joinScope, scope, expected) => {
    expect(joinScopeProblem(cluster(joinScope), scope)).toBe(expected);
  });
});
