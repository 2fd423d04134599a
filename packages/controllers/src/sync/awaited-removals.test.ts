import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { awaitedRemovals } from './awaited-removals.js';

const HOST_UID = 'host-ns-uid';
const ns = (uid: string, terminating = false): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: 'shop',
    uid,
    labels: { 'kubefed.io/managed': 'true' },
    ...(terminating ? { deletionTimestamp: '2026-12-02T10:00:00Z' } : {}),
  },
});

type Row = [string, Record<string, KubeObject>, string | undefined, string[]];

describe('awaitedRemovals (docs/kubefed-compatibility.md §4.4.11, §4.4.12)', () => {
  it.each<Row>([
    ['nothing is waited for without copies', {}, HOST_UID, []],
    ['every member copy is waited for', { m1: ns('a'), m2: ns('b') }, HOST_UID, ['m1', 'm2']],
    ['the terminating host namespace is not waited for', { host: ns(HOST_UID, true), m1: ns('a') }, HOST_UID, ['m1']],
    [
      'the host namespace is waited for while it is not terminating (it is unlabelled)',
      { host: ns(HOST_UID), m1: ns('a') },
      HOST_UID,
      ['host', 'm1'],
    ],
    ['a terminating member namespace is waited for', { host: ns(HOST_UID, true), m1: ns('a', true) }, HOST_UID, ['m1']],
    [
      'without the host uid every copy is waited for, terminating or not',
      { host: ns(HOST_UID, true), m1: ns('a') },
      undefined,
      ['host', 'm1'],
    ],
    ['an empty host uid matches no copy', { m1: { metadata: { name: 'shop', deletionTimestamp: '2026-12-02T10:00:00Z' } } }, '', ['m1']],
  ])('%s', (_, copies, hostUid, expected) => {
    expect(awaitedRemovals(new Map(Object.entries(copies)), hostUid)).toEqual(expected);
  });
});
