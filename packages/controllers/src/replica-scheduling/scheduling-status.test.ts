import { describe, expect, it } from 'vitest';
import {
  describeResult,
  formatTime,
  readSchedulingStatus,
  schedulingStatus,
  schedulingStatusChanged,
  type SchedulingStatus,
} from './scheduling-status.js';

const T0 = Date.parse('2026-11-21T10:00:00.400Z');
const T1 = Date.parse('2026-11-21T10:05:00Z');

const scheduled = (result: Record<string, number>): SchedulingStatus =>
  schedulingStatus(undefined, { reason: 'Scheduled', message: describeResult(result), result, generation: 1 }, T0);

describe('schedulingStatus', () => {
  it('records the result per cluster and a True Scheduled condition', () => {
    expect(scheduled({ a: 3, b: 6 })).toEqual({
      observedGeneration: 1,
      clusters: { a: { replicas: 3 }, b: { replicas: 6 } },
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Scheduled',
          message: '9 replicas over 2 clusters: a=3, b=6',
          lastTransitionTime: '2026-11-21T10:00:00Z',
        },
      ],
    });
  });

  it.each<[string, 'Scheduled' | 'NoReadyClusters', string, string]>([
    ['keeps lastTransitionTime while the condition status stays the same', 'Scheduled', 'True', '2026-11-21T10:00:00Z'],
    ['moves lastTransitionTime when the condition status flips', 'NoReadyClusters', 'False', '2026-11-21T10:05:00Z'],
  ])('%s', (_title, reason, status, time) => {
    const next = schedulingStatus(
      scheduled({ a: 1 }),
      { reason, message: 'm', generation: 2, ...(reason === 'Scheduled' ? { result: { a: 2 } } : {}) },
      T1,
    );
    expect(next.conditions).toEqual([expect.objectContaining({ status, reason, lastTransitionTime: time })]);
  });

  it('keeps the previous clusters when the outcome has no result', () => {
    const next = schedulingStatus(scheduled({ a: 1 }), { reason: 'TargetNotFound', message: 'gone' }, T1);
    expect(next.clusters).toEqual({ a: { replicas: 1 } });
    expect(next.observedGeneration).toBeUndefined();
  });

  it("keeps other writers' conditions", () => {
    const previous: SchedulingStatus = {
      clusters: {},
      conditions: [{ type: 'Other', status: 'True', reason: 'R', message: '', lastTransitionTime: 'x' }],
    };
    expect(schedulingStatus(previous, { reason: 'InvalidTargetKind', message: 'bad' }, T0).conditions.map((c) => c.type)).toEqual([
      'Other',
      'Scheduled',
    ]);
  });
});

describe('schedulingStatusChanged', () => {
  const base = scheduled({ a: 3, b: 6 });
  it.each<[string, SchedulingStatus | undefined, boolean]>([
    ['no previous status', undefined, true],
    ['the same status', structuredClone(base), false],
    ['the same clusters in another key order', { ...base, clusters: { b: { replicas: 6 }, a: { replicas: 3 } } }, false],
    ['another replica count', { ...base, clusters: { a: { replicas: 4 }, b: { replicas: 6 } } }, true],
    ['another observed generation', { ...base, observedGeneration: 7 }, true],
  ])('%s → %s', (_title, previous, expected) => {
    expect(schedulingStatusChanged(previous, base)).toBe(expected);
  });
});

describe('readSchedulingStatus', () => {
  it.each<[string, unknown, SchedulingStatus | undefined]>([
    ['nothing', undefined, undefined],
    ["KubeFed's empty status", {}, { clusters: {}, conditions: [] }],
    [
      'a written status',
      { observedGeneration: 2, clusters: { a: { replicas: 1 } }, conditions: [] },
      { observedGeneration: 2, clusters: { a: { replicas: 1 } }, conditions: [] },
    ],
    ['garbage fields', { observedGeneration: 'x', clusters: 5, conditions: {} }, { clusters: {}, conditions: [] }],
  ])('reads %s', (_title, raw, expected) => {
    expect(readSchedulingStatus(raw)).toEqual(expected);
  });
});

describe('formatTime', () => {
  it('formats whole seconds like metav1.Time', () => {
    expect(formatTime(T0)).toBe('2026-11-21T10:00:00Z');
  });
});
