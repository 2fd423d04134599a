import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  memberObjectVersion,
  parseClusterPropagatedVersion,
  parsePropagatedVersion,
  propagatedVersionName,
  validatePropagatedVersion,
} from './propagated-version.js';

const PV_YAML = `
apiVersion: core.kubefed.io/v1alpha1
kind: PropagatedVersion
metadata:
  name: configmap-settings
  namespace: shop
  ownerReferences:
    - apiVersion: types.kubefed.io/v1beta1
      kind: FederatedConfigMap
      name: settings
      uid: 9a8b7c6d-0000-4000-8000-000000000001
status:
  templateVersion: 0cc175b9c0f1b6a831c399e269772661
  overridesVersion: 92eb5ffee6ae2fec3ad71c777531578f
  clusterVersions:
    - clusterName: cluster1
      version: gen:3
    - clusterName: cluster2
      version: rv:1234
`;

const CPV_YAML = `
apiVersion: core.kubefed.io/v1alpha1
kind: ClusterPropagatedVersion
metadata:
  name: clusterrole-admin
  ownerReferences:
    - apiVersion: types.kubefed.io/v1beta1
      kind: FederatedClusterRole
      name: admin
      uid: 9a8b7c6d-0000-4000-8000-000000000002
      controller: true
      blockOwnerDeletion: true
status:
  templateVersion: a
  overridesVersion: b
`;

describe('PropagatedVersion and ClusterPropagatedVersion', () => {
  it.each([
    ['PropagatedVersion', PV_YAML, parsePropagatedVersion],
    ['ClusterPropagatedVersion', CPV_YAML, parseClusterPropagatedVersion],
  ])('round-trip a realistic %s exactly', (_kind, doc, parseFn) => {
    const input = parse(doc);
    expect(stringify(parseFn(input))).toBe(stringify(input));
  });

  it.each([
    ['ConfigMap', 'settings', 'configmap-settings'],
    ['Namespace', 'myns', 'namespace-myns'],
    ['ClusterRole', 'admin', 'clusterrole-admin'],
  ])('names the record of a %s %s %s', (kind, name, expected) => {
    expect(propagatedVersionName(kind, name)).toBe(expected);
  });

  it.each([
    [{ generation: 4, resourceVersion: '10' }, 'gen:4'],
    [{ generation: 0, resourceVersion: '10' }, 'rv:10'],
    [{ resourceVersion: '11' }, 'rv:11'],
  ])('records member version of %j as %s', (meta, version) => {
    expect(memberObjectVersion(meta)).toBe(version);
  });

  it('reports a missing templateVersion and a duplicate cluster', () => {
    const o = parse(PV_YAML);
    delete o.status.templateVersion;
    o.status.clusterVersions[1].clusterName = 'cluster1';
    expect(validatePropagatedVersion(o).issues).toEqual([
      { path: 'status.templateVersion', message: 'Required value' },
      { path: 'status.clusterVersions[1].clusterName', message: 'Duplicate value: "cluster1"' },
    ]);
  });
});
