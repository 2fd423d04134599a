import { describe, expect, it } from 'vitest';
import { federatedNamespaceResourceOf, schedulingTargetsOf, type FtcLike } from './scheduling-targets.js';

const ftc = (target: [string, string, string, string], federated: [string, string, string, string], propagation = 'Enabled'): FtcLike => ({
  spec: {
    targetType: {
      group: target[0],
      version: target[1],
      kind: target[2],
      pluralName: target[3],
      scope: target[3] === 'namespaces' ? 'Cluster' : 'Namespaced',
    },
    federatedType: { group: federated[0], version: federated[1], kind: federated[2], pluralName: federated[3], scope: 'Namespaced' },
    propagation,
  },
});
const deployments = (group: string, propagation?: string) =>
  ftc(['apps', 'v1', 'Deployment', 'deployments'], [group, 'v1beta1', 'FederatedDeployment', 'federateddeployments'], propagation);
const replicaSets = (group: string) =>
  ftc(['apps', 'v1', 'ReplicaSet', 'replicasets'], [group, 'v1beta1', 'FederatedReplicaSet', 'federatedreplicasets']);
const configMaps = ftc(['', 'v1', 'ConfigMap', 'configmaps'], ['types.kubefed.io', 'v1beta1', 'FederatedConfigMap', 'federatedconfigmaps']);
const namespaces = (group: string) =>
  ftc(['', 'v1', 'Namespace', 'namespaces'], [group, 'v1beta1', 'FederatedNamespace', 'federatednamespaces']);
const target = (group: string, plural: string, memberPlural: string) => ({
  federated: { group, version: 'v1beta1', resource: plural },
  member: { group: 'apps', version: 'v1', resource: memberPlural },
});

describe('schedulingTargetsOf', () => {
  it.each<[string, FtcLike[], Record<string, unknown>]>([
    ['no FTC', [], {}],
    [
      "KubeFed's default types",
      [deployments('types.kubefed.io'), replicaSets('types.kubefed.io'), configMaps],
      {
        FederatedDeployment: target('types.kubefed.io', 'federateddeployments', 'deployments'),
        FederatedReplicaSet: target('types.kubefed.io', 'federatedreplicasets', 'replicasets'),
      },
    ],
    [
      'a non-default federated group',
      [deployments('fed.example.io')],
      { FederatedDeployment: target('fed.example.io', 'federateddeployments', 'deployments') },
    ],
    ['propagation Disabled', [deployments('types.kubefed.io', 'Disabled')], {}],
    ['an FTC that does not parse', [{ spec: { targetType: 'deployments' } }, { spec: undefined }], {}],
  ])('%s', (_title, ftcs, expected) => {
    expect(schedulingTargetsOf(ftcs)).toEqual(expected);
  });
});

describe('federatedNamespaceResourceOf', () => {
  it.each<[string, FtcLike[], unknown]>([
    ['no namespaces FTC', [deployments('types.kubefed.io')], undefined],
    [
      'the default group',
      [namespaces('types.kubefed.io')],
      { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' },
    ],
    [
      'a non-default group',
      [configMaps, namespaces('fed.example.io')],
      { group: 'fed.example.io', version: 'v1beta1', resource: 'federatednamespaces' },
    ],
  ])('%s', (_title, ftcs, expected) => {
    expect(federatedNamespaceResourceOf(ftcs)).toEqual(expected);
  });
});
