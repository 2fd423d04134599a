import { describe, expect, it } from 'vitest';
import { boundedCopyStatus, boundRemoteStatuses, MAX_REMOTE_STATUS_BYTES, REMOTE_STATUS_OMITTED_KEY } from './bounded-remote-status.js';
import { slimMemberCopy } from './slim-member-copy.js';

const status = (bytes: number): Record<string, unknown> => ({ message: 'x'.repeat(bytes - 14) });

describe('boundRemoteStatuses', () => {
  it.each([
    [
      'keeps statuses that fit',
      [
        ['a', 1000],
        ['b', 2000],
      ],
      [],
    ],
    [
      'omits one cluster status past 64 KiB and keeps the others',
      [
        ['a', MAX_REMOTE_STATUS_BYTES + 1],
        ['b', 100],
      ],
      ['a'],
    ],
    ['keeps a status of exactly 64 KiB', [['a', MAX_REMOTE_STATUS_BYTES]], []],
    [
      'omits the largest statuses until all fit in 1 MiB',
      Array.from({ length: 20 }, (_, i) => [`m${String(i).padStart(2, '0')}`, 60_000 + i * 100] as const),
      ['m19', 'm18', 'm17'],
    ],
  ] as const)('%s', (_title, sizes, omitted) => {
    const clusters = sizes.map(([name, bytes]) => ({ name, remoteStatus: status(bytes) }));
    expect(clusters.every((c, i) => JSON.stringify(c.remoteStatus).length === sizes[i]?.[1])).toBe(true);
    const bounded = boundRemoteStatuses(clusters);
    expect(bounded.map((c) => c.name)).toEqual(clusters.map((c) => c.name));
    const marked = bounded.filter((c) => c.remoteStatus !== undefined && REMOTE_STATUS_OMITTED_KEY in c.remoteStatus).map((c) => c.name);
    expect(marked.sort()).toEqual([...omitted].sort());
    const total = bounded.reduce((sum, c) => sum + JSON.stringify(c.remoteStatus ?? {}).length, 0);
    expect(total).toBeLessThanOrEqual(1024 * 1024);
  });

  it('says which cluster, how big its status is and the limit, and leaves clusters without status alone', () => {
    const [big, none] = boundRemoteStatuses([
      { name: 'member2', status: 'ClusterNotReady', remoteStatus: status(200_000) },
      { name: 'member1' },
    ]);
    expect(big).toEqual({
      name: 'member2',
      status: 'ClusterNotReady',
      remoteStatus: {
        [REMOTE_STATUS_OMITTED_KEY]:
          'the status of the copy in cluster member2 is 196 KiB as JSON, more than the 64 KiB one cluster may report here',
      },
    });
    expect(none).toEqual({ name: 'member1' });
  });
});

describe('boundedCopyStatus', () => {
  it('keeps a status that fits, and keeps a marker instead of one past 64 KiB in the slim member copy', () => {
    const small = { readyReplicas: 3 };
    expect(boundedCopyStatus(small)).toBe(small);
    const copy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' }, status: status(300_000) };
    expect(slimMemberCopy(copy, { targetKind: 'Deployment', keepStatus: true }).status).toEqual({
      [REMOTE_STATUS_OMITTED_KEY]: 'the status of the copy is 293 KiB as JSON, more than the 64 KiB one cluster may report here',
    });
  });
});
