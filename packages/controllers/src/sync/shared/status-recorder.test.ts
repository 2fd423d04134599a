import { describe, expect, it } from 'vitest';
import { federatedObjectRef } from '@kubefed/queue';
import { StatusRecorder } from './status-recorder.js';

describe('StatusRecorder', () => {
  it('marks a key dirty only when an outcome changes', () => {
    const r = new StatusRecorder();
    const key = federatedObjectRef('configmaps', 'ns/a');
    r.record(key, 'member1', { status: '' });
    expect(r.takeDirty('configmaps')).toEqual(['ns/a']);
    r.record(key, 'member1', { status: '' });
    expect(r.takeDirty('configmaps')).toEqual([]);
    r.record(key, 'member1', { status: 'UpdateFailed' });
    expect(r.takeDirty('configmaps')).toEqual(['ns/a']);
    expect(r.outcomes(key)).toEqual(new Map([['member1', { status: 'UpdateFailed' }]]));
  });

  it('removes a cluster entry when undefined is recorded, and forgets a key entirely', () => {
    const r = new StatusRecorder();
    const key = federatedObjectRef('clusterroles.rbac.authorization.k8s.io', 'view');
    r.record(key, 'member1', { status: 'WaitingForRemoval' });
    r.record(key, 'member2', { status: '' });
    r.record(key, 'member1', undefined);
    expect([...r.outcomes(key).keys()]).toEqual(['member2']);
    r.forget(key);
    expect(r.outcomes(key).size).toBe(0);
    expect(r.takeDirty('clusterroles.rbac.authorization.k8s.io')).toEqual([]);
  });

  it('hands out dirty keys of one federated type only', () => {
    const r = new StatusRecorder();
    r.markDirty(federatedObjectRef('configmaps', 'ns/a'));
    r.markDirty(federatedObjectRef('secrets', 'ns/a'));
    expect(r.takeDirty('configmaps')).toEqual(['ns/a']);
    expect(r.takeDirty('secrets')).toEqual(['ns/a']);
    expect(r.takeDirty('configmaps')).toEqual([]);
  });

  it('hands out low-priority keys apart, and a key marked at both priorities as normal alone', () => {
    const r = new StatusRecorder();
    const ref = (key: string): ReturnType<typeof federatedObjectRef> => federatedObjectRef('configmaps', key);
    r.markDirty(ref('ns/fan-out'), 'low');
    r.markDirty(ref('ns/both'), 'low');
    r.markDirty(ref('ns/both'));
    r.markDirty(ref('ns/change'));
    r.markDirty(ref('ns/change'), 'low');
    expect(r.takeDirty('configmaps', 'low')).toEqual(['ns/fan-out']);
    expect(r.takeDirty('configmaps')).toEqual(['ns/both', 'ns/change']);
    r.markDirty(ref('ns/gone'), 'low');
    r.forget(ref('ns/gone'));
    expect(r.takeDirty('configmaps', 'low')).toEqual([]);
  });
});
