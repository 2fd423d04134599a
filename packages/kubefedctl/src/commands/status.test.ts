import { stripVTControlCharacters } from 'node:util';
import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { formatStatus, objectStatus, propagationText, selectTypes, type StatusType } from './status.js';

const cluster = (name: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { name, labels } });
const CLUSTERS = [cluster('member1', { region: 'us' }), cluster('member2', { region: 'eu' }), cluster('member3', { region: 'ap' })];

const fedObject = (spec: Record<string, unknown>, status?: Record<string, unknown>, generation = 1): KubeObject => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedDeployment',
  metadata: { name: 'web', namespace: 'demo', generation },
  spec,
  ...(status === undefined ? {} : { status }),
});

describe('objectStatus', () => {
  it.each([
    [
      'placed clusters that have not reported are Pending',
      fedObject(
        { placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
        {
          observedGeneration: 1,
          conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
          clusters: [{ name: 'member1' }],
        },
      ),
      {
        propagation: 'False',
        reason: 'CheckClusters',
        placement: 'clusters: member1, member2',
        clusters: [
          { name: 'member1', status: 'OK' },
          { name: 'member2', status: 'Pending' },
        ],
      },
    ],
    [
      'a placed name without a KubeFedCluster is NotJoined, not Pending',
      fedObject({ placement: { clusters: [{ name: 'member1' }, { name: 'typo' }] } }),
      {
        placement: 'clusters: member1, typo',
        clusters: [
          { name: 'member1', status: 'Pending' },
          { name: 'typo', status: 'NotJoined' },
        ],
      },
    ],
    [
      'a selector is evaluated against the KubeFedCluster labels',
      fedObject({ placement: { clusterSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] } } }),
      {
        propagation: 'Unknown',
        placement: 'selector: region in (eu,us)',
        clusters: [
          { name: 'member1', status: 'Pending' },
          { name: 'member2', status: 'Pending' },
        ],
      },
    ],
    [
      'reported failures and remote workload status are kept',
      fedObject(
        { placement: { clusterSelector: {} } },
        {
          observedGeneration: 1,
          conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
          clusters: [
            { name: 'member1', remoteStatus: { replicas: 3, readyReplicas: 2 } },
            { name: 'member2', status: 'CreationFailed' },
            { name: 'member3', status: 'ClusterNotReady' },
          ],
        },
      ),
      {
        placement: 'selector: (every cluster)',
        clusters: [
          { name: 'member1', status: 'OK', remote: '2/3 ready' },
          { name: 'member2', status: 'CreationFailed' },
          { name: 'member3', status: 'ClusterNotReady' },
        ],
      },
    ],
    ['no placement places nowhere', fedObject({}), { placement: 'none', clusters: [] }],
  ])('%s', (_title, obj, expected) => {
    expect(objectStatus(obj, 'FederatedDeployment', CLUSTERS)).toMatchObject(expected);
  });
});

describe('propagationText', () => {
  it.each([
    [{ generation: 2, observedGeneration: 1, propagation: 'True' }, 'Pending (generation 2 not yet propagated)'],
    [{ generation: 1, observedGeneration: 1, propagation: 'True' }, 'True'],
    [{ generation: 1, observedGeneration: 1, propagation: 'False', reason: 'NamespaceNotFederated' }, 'False (NamespaceNotFederated)'],
  ])('%j → %s', (s, text) => {
    expect(propagationText({ kind: 'K', name: 'n', placement: '', clusters: [], ...s })).toBe(text);
  });
});

describe('formatStatus', () => {
  const objects = [
    objectStatus(
      fedObject(
        { placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
        {
          observedGeneration: 1,
          conditions: [{ type: 'Propagation', status: 'False', reason: 'CheckClusters' }],
          clusters: [
            { name: 'member1', remoteStatus: { replicas: 2, readyReplicas: 2 } },
            { name: 'member2', status: 'UpdateFailed' },
          ],
        },
      ),
      'FederatedDeployment',
      CLUSTERS,
    ),
  ];

  it('prints one row per object with the clusters at a glance', () => {
    expect(formatStatus(objects)).toBe(
      [
        'KIND                  NAME   PROPAGATION             CLUSTERS',
        'FederatedDeployment   web    False (CheckClusters)   member1 OK, member2 UpdateFailed',
        '',
      ].join('\n'),
    );
  });

  it('prints a row per cluster with remote status and placement when wide, and the namespace with -A', () => {
    const text = formatStatus(objects, { wide: true, allNamespaces: true });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual(['NAMESPACE', 'KIND', 'NAME', 'PROPAGATION', 'CLUSTER', 'STATUS', 'REMOTE', 'PLACEMENT']);
    expect(lines[1]?.split(/\s{2,}/)).toEqual([
      'demo',
      'FederatedDeployment',
      'web',
      'False (CheckClusters)',
      'member1',
      'OK',
      '2/2 ready',
      'clusters: member1, member2',
    ]);
    expect(lines[2]?.trim().split(/\s{2,}/)).toEqual(['member2', 'UpdateFailed', '-']);
  });

  it('colours only through the given painter', () => {
    const text = formatStatus(objects, { paint: (style, t) => `<${style}>${t}` });
    expect(text).toContain('<red>False (CheckClusters)');
    expect(text).toContain('member1 <green>OK');
    expect(formatStatus(objects)).not.toContain('\u001b[');
  });

  it('aligns columns by the visible width of coloured cells', () => {
    const lines = formatStatus(objects, { paint: (_style, t) => `\u001b[31m${t}\u001b[39m` }).split('\n');
    expect(lines[1]).toContain('\u001b[31m');
    const visible = lines.map((l) => stripVTControlCharacters(l));
    expect(visible[0]?.indexOf('CLUSTERS')).toBe(visible[1]?.indexOf('member1'));
  });

  it('says so when there is nothing', () => {
    expect(formatStatus([])).toBe('No federated objects found.\n');
  });
});

describe('selectTypes', () => {
  const types: StatusType[] = [
    {
      name: 'deployments.apps',
      kind: 'FederatedDeployment',
      gvr: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federateddeployments' },
      namespaced: true,
      propagation: 'Enabled',
    },
    {
      name: 'configmaps',
      kind: 'FederatedConfigMap',
      gvr: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' },
      namespaced: true,
      propagation: 'Enabled',
    },
  ];
  it.each(['deployments.apps', 'FederatedDeployment', 'federateddeployments', 'deployments', 'Deployment'])(
    'finds deployments by %s',
    (arg) => {
      expect(selectTypes(types, arg).map((t) => t.name)).toEqual(['deployments.apps']);
    },
  );
  it('names the known types when nothing matches', () => {
    expect(() => selectTypes(types, 'widgets')).toThrow('no federated type matches "widgets"');
    try {
      selectTypes(types, 'widgets');
    } catch (e) {
      expect((e as { hint?: string }).hint).toBe('enabled types: deployments.apps, configmaps');
    }
  });
});
