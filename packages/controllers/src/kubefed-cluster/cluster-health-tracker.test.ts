import { DynamicClient } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { ClusterHealthTracker } from './cluster-health-tracker.js';

const client = (name: string): DynamicClient =>
  new DynamicClient({ name, server: 'http://127.0.0.1:1', tls: {}, authHeaders: () => Promise.resolve({}) });

describe('ClusterHealthTracker', () => {
  it('publishes ready clusters and notifies only when the set changes', () => {
    const tracker = new ClusterHealthTracker();
    const seen: string[][] = [];
    const off = tracker.onChange((names) => seen.push([...names]));
    using c1 = client('c1');
    using c2 = client('c2');
    tracker.set('c2', c2);
    tracker.set('c1', c1);
    tracker.set('c1', c1);
    tracker.set('c2', undefined);
    tracker.set('c3', undefined);
    off();
    tracker.set('c2', c2);
    expect(seen).toEqual([['c2'], ['c1', 'c2'], ['c1']]);
    expect([...tracker.readyClusters().keys()].sort()).toEqual(['c1', 'c2']);
    expect(tracker.isReady('c1')).toBe(true);
    expect(tracker.isReady('c3')).toBe(false);
  });
});
