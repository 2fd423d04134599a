import { describe, expect, it } from 'vitest';
import { analyzePods, type PodAnalysis, type PodLike } from '@kubefed/scheduler';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const ago = (seconds: number): string => new Date(NOW - seconds * 1000).toISOString();

const running = (readyStatus: string): PodLike => ({
  status: {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: readyStatus },
    ],
  },
});
const unschedulableFor = (seconds: number, lastTransitionTime: string | null = ago(seconds)): PodLike => ({
  status: {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime }],
  },
});
const pending: PodLike = { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] } };

describe('analyzePods', () => {
  it.each([
    ['no pods', [], { total: 0, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 }],
    ['running ready pods', [running('True'), running('True')], { total: 2, runningAndReady: 2, unschedulable: 0, unschedulableNow: 0 }],
    [
      'a running pod whose Ready condition is False (KubeFed counts it)',
      [running('False')],
      { total: 1, runningAndReady: 1, unschedulable: 0, unschedulableNow: 0 },
    ],
    [
      'a running pod without a Ready condition',
      [{ status: { phase: 'Running', conditions: [] } }],
      { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 },
    ],
    ['a pod unschedulable for 61 s', [unschedulableFor(61)], { total: 1, runningAndReady: 0, unschedulable: 1, unschedulableNow: 1 }],
    [
      'a pod unschedulable for exactly 60 s (not yet)',
      [unschedulableFor(60)],
      { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 1 },
    ],
    ['a pod unschedulable for 10 s', [unschedulableFor(10)], { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 1 }],
    [
      'an unschedulable pod without a transition time (Go zero time: long ago)',
      [unschedulableFor(0, null)],
      { total: 1, runningAndReady: 0, unschedulable: 1, unschedulableNow: 1 },
    ],
    ['a scheduled pending pod', [pending], { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 }],
    [
      'PodScheduled False for another reason',
      [
        {
          status: {
            phase: 'Pending',
            conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulerError', lastTransitionTime: ago(600) }],
          },
        },
      ],
      { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 },
    ],
    ['a pod without status', [{}], { total: 1, runningAndReady: 0, unschedulable: 0, unschedulableNow: 0 }],
    [
      'a mix of running, unschedulable and pending pods',
      [running('True'), unschedulableFor(120), unschedulableFor(5), pending],
      { total: 4, runningAndReady: 1, unschedulable: 1, unschedulableNow: 2 },
    ],
  ] as [string, PodLike[], PodAnalysis][])('counts %s', (_title, pods, expected) => {
    expect(analyzePods(pods, NOW)).toEqual(expected);
  });

  it('accepts now as a Date and transition times as Date or epoch ms', () => {
    const pods: PodLike[] = [
      {
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: new Date(NOW - 61_000) }],
        },
      },
      {
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: NOW - 30_000 }],
        },
      },
    ];
    expect(analyzePods(pods, new Date(NOW))).toMatchObject({ unschedulable: 1, unschedulableNow: 2 });
  });
});
