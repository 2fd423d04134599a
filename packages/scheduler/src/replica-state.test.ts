import { describe, expect, it } from 'vitest';
import {
  type ClusterReplicaState,
  clustersReplicaState,
  InvalidPlanInputError,
  type MemberWorkload,
  needsPodAnalysis,
  planReplicas,
  type PlanResult,
  type PodLike,
  schedulingResult,
  withDefaultClusterPreferences,
} from '@kubefed/scheduler';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const readyPod: PodLike = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
const stuck = (seconds: number): PodLike => ({
  status: {
    phase: 'Pending',
    conditions: [
      { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: new Date(NOW - seconds * 1000).toISOString() },
    ],
  },
});

describe('clustersReplicaState', () => {
  it.each([
    ['no member copies', [], { currentReplicas: {}, capacity: {}, needsRecheck: false }],
    [
      'a fully ready workload counts its ready replicas without pods',
      [{ cluster: 'a', replicas: 3, readyReplicas: 3 }],
      { currentReplicas: { a: 3 }, capacity: {}, needsRecheck: false },
    ],
    ['absent replica fields count as 0', [{ cluster: 'a' }], { currentReplicas: { a: 0 }, capacity: {}, needsRecheck: false }],
    [
      'a not-ready workload counts its running pods',
      [{ cluster: 'a', replicas: 3, readyReplicas: 1, pods: [readyPod, readyPod] }],
      { currentReplicas: { a: 2 }, capacity: {}, needsRecheck: false },
    ],
    [
      'pods unschedulable for over a minute lower the capacity to replicas minus them',
      [{ cluster: 'a', replicas: 5, readyReplicas: 2, pods: [readyPod, readyPod, stuck(90), stuck(120), stuck(300)] }],
      { currentReplicas: { a: 2 }, capacity: { a: 2 }, needsRecheck: false },
    ],
    [
      'recently unschedulable pods ask for a recheck without a capacity yet',
      [{ cluster: 'a', replicas: 3, readyReplicas: 1, pods: [readyPod, stuck(10)] }],
      { currentReplicas: { a: 1 }, capacity: {}, needsRecheck: true },
    ],
    [
      'only the last analysed cluster decides the recheck (KubeFed quirk)',
      [
        { cluster: 'a', replicas: 3, readyReplicas: 1, pods: [readyPod, stuck(10)] },
        { cluster: 'b', replicas: 2, readyReplicas: 2 },
        { cluster: 'c', replicas: 3, readyReplicas: 1, pods: [readyPod, stuck(90)] },
      ],
      { currentReplicas: { a: 1, b: 2, c: 1 }, capacity: { c: 2 }, needsRecheck: false },
    ],
  ] as [string, MemberWorkload[], ClusterReplicaState][])('derives %s', (_title, workloads, expected) => {
    expect(clustersReplicaState(workloads, NOW)).toEqual(expected);
  });

  it('rejects a workload that needs pod analysis but comes without pods', () => {
    expect(() => clustersReplicaState([{ cluster: 'east', replicas: 3, readyReplicas: 1 }], NOW)).toThrow(InvalidPlanInputError);
    expect(() => clustersReplicaState([{ cluster: 'east', replicas: 3, readyReplicas: 1 }], NOW)).toThrow('workloads[0].pods');
  });

  it.each([
    [{ replicas: 3, readyReplicas: 3 }, false],
    [{ replicas: 3, readyReplicas: 2 }, true],
    [{ replicas: 0 }, false],
    [{ readyReplicas: 1 }, true],
  ])('decides whether %j needs pod analysis: %s', (workload, expected) => {
    expect(needsPodAnalysis(workload)).toBe(expected);
  });
});

describe('schedulingResult', () => {
  it.each([
    [
      'adds overflow to the plan (the total can exceed totalReplicas)',
      { plan: { a: 20, b: 20, c: 10 }, overflow: { c: 7 } },
      {},
      { a: 20, b: 20, c: 17 },
    ],
    [
      'lists clusters with current replicas at 0 when the plan lacks them',
      { plan: { a: 5 }, overflow: {} },
      { a: 3, z: 2 },
      { a: 5, z: 0 },
    ],
    ['keeps 0-replica clusters of the plan', { plan: { a: 0, b: 4 }, overflow: {} }, {}, { a: 0, b: 4 }],
  ] as [string, PlanResult, Record<string, number>, Record<string, number>][])('%s', (_title, planned, current, expected) => {
    expect(schedulingResult(planned, current)).toEqual(expected);
  });

  it('feeds the capacity estimate into the planner as the RSP controller does', () => {
    const state = clustersReplicaState(
      [
        { cluster: 'a', replicas: 17, readyReplicas: 17 },
        { cluster: 'b', replicas: 17, readyReplicas: 17 },
        {
          cluster: 'c',
          replicas: 16,
          readyReplicas: 10,
          pods: [...Array<PodLike>(10).fill(readyPod), ...Array<PodLike>(6).fill(stuck(90))],
        },
      ],
      NOW,
    );
    expect(state.capacity).toEqual({ c: 10 });
    const planned = planReplicas({
      totalReplicas: 50,
      rebalance: true,
      clusters: withDefaultClusterPreferences({}),
      availableClusters: ['a', 'b', 'c'],
      currentReplicas: state.currentReplicas,
      capacity: state.capacity,
      key: 'default/web',
    });
    const result = schedulingResult(planned, state.currentReplicas);
    expect(result.c).toBe(planned.plan.c! + (planned.overflow.c ?? 0));
    expect(planned.plan.c).toBe(10);
    expect(planned.plan.a! + planned.plan.b!).toBe(40);
  });
});

describe('withDefaultClusterPreferences', () => {
  it.each([
    ['an empty map', {}, { '*': { weight: 1 } }],
    ['a missing map', undefined, { '*': { weight: 1 } }],
    ['a non-empty map (unchanged)', { a: { weight: 2 } }, { a: { weight: 2 } }],
  ])('turns %s into the preferences the controller plans with', (_title, clusters, expected) => {
    expect(withDefaultClusterPreferences(clusters)).toEqual(expected);
  });
});
