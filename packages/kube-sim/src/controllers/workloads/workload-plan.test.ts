import { describe, expect, it } from 'vitest';
import type { KObject } from '../../util/json.js';
import {
  deploymentStatus,
  maxUnavailable,
  podTemplateHash,
  podsToDelete,
  replicaSetStatus,
  resolveIntOrPercent,
  unschedulableMessage,
  unschedulablePodStatus,
} from './workload-plan.js';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } };

function pod(name: string, phase: string, opts: { node?: string; ready?: boolean } = {}): KObject {
  return {
    metadata: { name, uid: name, labels: { app: 'web' } },
    spec: opts.node === undefined ? {} : { nodeName: opts.node },
    status: { phase, conditions: opts.ready === true ? [{ type: 'Ready', status: 'True' }] : [] },
  };
}

function rs(name: string, spec: number, status: Record<string, number>): KObject {
  return { metadata: { name, generation: 1 }, spec: { replicas: spec, template }, status };
}

describe('podTemplateHash', () => {
  it('is stable across key order and ignores an existing pod-template-hash label', () => {
    const h = podTemplateHash(template);
    expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(podTemplateHash({ spec: template.spec, metadata: template.metadata })).toBe(h);
    expect(podTemplateHash({ ...template, metadata: { labels: { app: 'web', 'pod-template-hash': h } } })).toBe(h);
  });

  it('changes when the template changes', () => {
    const changed = { ...template, spec: { containers: [{ name: 'app', image: 'nginx:2' }] } };
    expect(podTemplateHash(changed)).not.toBe(podTemplateHash(template));
  });
});

describe('resolveIntOrPercent', () => {
  it.each([
    [1, 10, false, 1],
    ['25%', 3, false, 0],
    ['25%', 3, true, 1],
    ['25%', 4, false, 1],
    ['50%', 5, true, 3],
    ['2', 10, false, 2],
    [undefined, 10, false, 0],
  ])('resolves %j of %i (round up %s) to %i', (value, total, up, expected) => {
    expect(resolveIntOrPercent(value, total, up)).toBe(expected);
  });
});

describe('maxUnavailable', () => {
  it.each([
    [{}, 3, 0],
    [{}, 4, 1],
    [{ strategy: { type: 'Recreate' } }, 4, 0],
    [{ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 1 } } }, 4, 2],
    [{ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }, 4, 1],
    [{ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 9 } } }, 4, 4],
  ])('allows %j with %i replicas %i unavailable', (spec, replicas, expected) => {
    expect(maxUnavailable(spec, replicas)).toBe(expected);
  });
});

describe('podsToDelete', () => {
  const pods = [
    pod('old-running', 'Running', { node: 'n1', ready: true }),
    pod('pending', 'Pending'),
    pod('new-running', 'Running', { node: 'n2', ready: true }),
    pod('bound-starting', 'Pending', { node: 'n1' }),
  ];
  const order = (p: KObject): number => ['old-running', 'pending', 'new-running', 'bound-starting'].indexOf(p.metadata.name ?? '');

  it.each([
    [1, ['pending']],
    [2, ['pending', 'bound-starting']],
    [3, ['pending', 'bound-starting', 'new-running']],
    [0, []],
  ])('deletes %i pods as %j', (count, expected) => {
    expect(podsToDelete(pods, count, order).map((p) => p.metadata.name)).toEqual(expected);
  });
});

describe('replicaSetStatus', () => {
  it('counts replicas, ready and available pods and omits zero counts', () => {
    const set = rs('web-abc', 3, {});
    expect(replicaSetStatus(set, [pod('a', 'Running', { node: 'n', ready: true }), pod('b', 'Pending')])).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      observedGeneration: 1,
    });
    expect(replicaSetStatus(set, [])).toEqual({ replicas: 0, observedGeneration: 1 });
  });
});

describe('deploymentStatus', () => {
  const deployment = (replicas: number): KObject => ({ metadata: { name: 'web', generation: 2 }, spec: { replicas, template } });
  const now = '2026-11-21T20:00:00Z';

  it('reports Available and a completed rollout when every desired replica is available', () => {
    const current = rs('web-new', 3, { replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const s = deploymentStatus(deployment(3), { newRs: current, all: [current] }, now);
    expect(s).toMatchObject({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(s['unavailableReplicas']).toBeUndefined();
    expect(s['conditions']).toEqual([
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: now,
        lastTransitionTime: now,
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {
        type: 'Progressing',
        status: 'True',
        lastUpdateTime: now,
        lastTransitionTime: now,
        reason: 'NewReplicaSetAvailable',
        message: 'ReplicaSet "web-new" has successfully progressed.',
      },
    ]);
  });

  it('reports MinimumReplicasUnavailable below replicas minus maxUnavailable and keeps condition times while nothing changes', () => {
    const current = rs('web-new', 3, { replicas: 3, readyReplicas: 2, availableReplicas: 2 });
    const first = deploymentStatus(deployment(3), { newRs: current, all: [current] }, now);
    expect(first).toMatchObject({ readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1 });
    expect(first['conditions']).toMatchObject([
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
      { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' },
    ]);
    const again = deploymentStatus({ ...deployment(3), status: first }, { newRs: current, all: [current] }, '2026-11-21T20:05:00Z');
    expect(again).toEqual(first);
  });

  it('counts old ReplicaSets in replicas but only the new one in updatedReplicas', () => {
    const old = rs('web-old', 0, { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
    const current = rs('web-new', 2, { replicas: 2 });
    expect(deploymentStatus(deployment(2), { newRs: current, all: [old, current] }, now)).toMatchObject({
      replicas: 3,
      updatedReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      unavailableReplicas: 1,
    });
  });
});

describe('unschedulablePodStatus', () => {
  it.each([
    [2, '0/2 nodes are available: 2 Too many pods.'],
    [0, 'no nodes available to schedule pods'],
  ])('explains a full cluster of %i nodes as %j', (nodes, message) => {
    expect(unschedulableMessage(nodes)).toBe(message);
  });

  it('keeps the time the pod first became unschedulable', () => {
    const first = unschedulablePodStatus(pod('p', 'Pending'), 2, '2026-11-21T20:00:00Z');
    const later = unschedulablePodStatus({ ...pod('p', 'Pending'), status: first }, 3, '2026-11-21T20:09:00Z');
    expect(later['conditions']).toEqual([
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: '2026-11-21T20:00:00Z',
        reason: 'Unschedulable',
        message: '0/3 nodes are available: 3 Too many pods.',
      },
    ]);
  });
});
