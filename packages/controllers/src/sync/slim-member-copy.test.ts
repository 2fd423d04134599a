import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { isManaged, planClusterSync } from './dispatch-plan.js';
import { retainClusterFields } from './retain-fields.js';
import { memberCopyFingerprint, slimMemberCopy } from './slim-member-copy.js';
import { memberVersion, needsUpdate } from './versions.js';

const metadata = {
  name: 'web',
  namespace: 'ns',
  uid: 'u-1',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-11-25T00:00:00Z',
  labels: { 'kubefed.io/managed': 'true', app: 'web' },
  annotations: { note: 'by hand' },
  finalizers: ['example.com/keep'],
  ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'p-1' }],
  managedFields: [{ manager: 'kubefed', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {} } } }],
};

/** `metadata` without the fields named. */
const metadataWithout = (...keys: string[]): KubeObject['metadata'] =>
  Object.fromEntries(Object.entries(metadata).filter(([k]) => !keys.includes(k)));
const keptWithout = (...keys: string[]): KubeObject['metadata'] =>
  Object.fromEntries(Object.entries(keptMetadata).filter(([k]) => !keys.includes(k)));

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'x'.repeat(1000) } };
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata,
  spec: { replicas: 5, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
  status: { replicas: 5, readyReplicas: 4 },
};
const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata,
  spec: {
    type: 'NodePort',
    selector: { app: 'web' },
    clusterIP: '10.0.0.7',
    clusterIPs: ['10.0.0.7'],
    healthCheckNodePort: 31000,
    ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
  },
  status: { loadBalancer: {} },
};
const namespace: KubeObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { ...metadataWithout('namespace', 'generation'), name: 'app' },
  spec: { finalizers: ['kubernetes'] },
};
const serviceAccount: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata, secrets: [{ name: 'token-abc' }] };

const keptMetadata = {
  name: 'web',
  namespace: 'ns',
  uid: 'u-1',
  resourceVersion: '42',
  generation: 3,
  labels: metadata.labels,
  annotations: metadata.annotations,
  finalizers: metadata.finalizers,
};

describe('slimMemberCopy', () => {
  it.each<[string, KubeObject, boolean, KubeObject]>([
    [
      'keeps only the metadata the decisions read of a ConfigMap',
      configMap,
      false,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: keptMetadata },
    ],
    [
      'keeps spec.replicas of a Deployment, and its status when asked',
      deployment,
      true,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: keptMetadata, spec: { replicas: 5 }, status: deployment.status },
    ],
    [
      'drops the status when not asked',
      deployment,
      false,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: keptMetadata, spec: { replicas: 5 } },
    ],
    [
      "keeps a Service's allocated IPs, health check node port and ports",
      service,
      false,
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: keptMetadata,
        spec: {
          clusterIP: '10.0.0.7',
          clusterIPs: ['10.0.0.7'],
          healthCheckNodePort: 31000,
          ports: (service.spec as { ports: unknown }).ports,
        },
      },
    ],
    [
      "keeps a ServiceAccount's secrets",
      serviceAccount,
      false,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: keptMetadata, secrets: [{ name: 'token-abc' }] },
    ],
    [
      'keeps the deletion timestamp',
      { ...configMap, metadata: { ...metadata, deletionTimestamp: '2026-11-25T01:00:00Z' } },
      false,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...keptMetadata, deletionTimestamp: '2026-11-25T01:00:00Z' } },
    ],
    [
      'drops the uid of an object without a generation (its version is its resourceVersion)',
      { ...configMap, metadata: metadataWithout('generation') },
      false,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: keptWithout('uid', 'generation') },
    ],
    [
      'keeps the uid of a Namespace (the host-namespace check reads it)',
      namespace,
      false,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { ...keptWithout('namespace', 'generation'), name: 'app' } },
    ],
    [
      'keeps a spec that is not an object as it is (retention reports it)',
      { ...deployment, spec: 'broken', status: undefined },
      false,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: keptMetadata, spec: 'broken' },
    ],
  ])('%s', (_title, obj, keepStatus, expected) => {
    const slim = slimMemberCopy(obj, { targetKind: obj.kind ?? '', keepStatus });
    expect(JSON.parse(JSON.stringify(slim))).toEqual(expected);
  });

  it.each<KubeObject>([
    configMap,
    { ...configMap, metadata: metadataWithout('generation') },
    deployment,
    service,
    serviceAccount,
    namespace,
  ])('decides on the slim copy of a $kind as on the whole object', (obj) => {
    const slim = slimMemberCopy(obj, { targetKind: obj.kind ?? '', keepStatus: false });
    const desired: KubeObject = {
      apiVersion: obj.apiVersion ?? '',
      kind: obj.kind ?? '',
      metadata: { name: 'web', namespace: 'ns', labels: { 'kubefed.io/managed': 'true' } },
      spec: { replicas: 1, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
    };
    for (const retainReplicas of [false, true]) {
      const options = { targetKind: obj.kind ?? '', retainReplicas, cluster: 'c1' };
      expect(retainClusterFields(desired, slim, options)).toEqual(retainClusterFields(desired, obj, options));
    }
    expect(memberVersion(slim)).toBe(memberVersion(obj));
    expect(isManaged(slim)).toBe(isManaged(obj));
    const input = { fedObject: { spec: { template: {} } }, cluster: 'c1', desired };
    expect(needsUpdate({ ...input, memberObject: slim })).toBe(needsUpdate({ ...input, memberObject: obj }));
    // The worker looks up the host's namespace uid for Namespace targets only.
    for (const hostNamespaceUid of obj.kind === 'Namespace' ? [undefined, 'u-1'] : [undefined]) {
      const plan = (object: KubeObject) =>
        planClusterSync({
          cluster: 'c1',
          ready: true,
          selected: false,
          member: { state: 'present', object },
          adoptResources: 'Enabled',
          hostNamespaceUid,
        });
      expect(plan(slim).op).toBe(plan(obj).op);
    }
  });

  it('shares one labels object between the copies that carry only the managed label', () => {
    const a = slimMemberCopy(configMap, { targetKind: 'ConfigMap', keepStatus: false });
    const b = slimMemberCopy(
      { ...configMap, metadata: { ...metadata, labels: { 'kubefed.io/managed': 'true' } } },
      { targetKind: 'ConfigMap', keepStatus: false },
    );
    const c = slimMemberCopy(
      { ...configMap, metadata: { ...metadata, name: 'other', labels: { 'kubefed.io/managed': 'true' } } },
      { targetKind: 'ConfigMap', keepStatus: false },
    );
    expect(a.metadata.labels).toEqual(metadata.labels);
    expect(b.metadata.labels).toBe(c.metadata.labels);
    expect(Object.isFrozen(b.metadata.labels)).toBe(true);
  });

  it('fails retention on the slim copy as on the whole object', () => {
    const broken = { ...deployment, spec: { ...(deployment.spec as object), replicas: 'many' } };
    const options = { targetKind: 'Deployment', retainReplicas: true, cluster: 'c1' };
    const desired: KubeObject = { metadata: { name: 'web' }, spec: {} };
    const slim = slimMemberCopy(broken, { targetKind: 'Deployment', keepStatus: false });
    expect(() => retainClusterFields(desired, slim, options)).toThrow('member .spec.replicas is "many", expected an integer');
    expect(() => retainClusterFields(desired, broken, options)).toThrow('member .spec.replicas is "many", expected an integer');
  });
});

describe('memberCopyFingerprint', () => {
  const slimOf = (obj: KubeObject): KubeObject => slimMemberCopy(obj, { targetKind: obj.kind ?? '', keepStatus: true });

  it('is the whole object’s for a slim copy', () => {
    expect(memberCopyFingerprint(slimOf(deployment))).toBe(memberCopyFingerprint(deployment));
  });

  it.each<[string, KubeObject]>([
    ['the resourceVersion', { ...deployment, metadata: { ...metadata, resourceVersion: '43' } }],
    ['the managed fields', { ...deployment, metadata: { ...metadata, managedFields: [] } }],
    ['the status', { ...deployment, status: { replicas: 1 } }],
  ])('ignores a change of %s', (_title, changed) => {
    expect(memberCopyFingerprint(slimOf(changed))).toBe(memberCopyFingerprint(slimOf(deployment)));
  });

  it.each<[string, KubeObject, KubeObject]>([
    ['a ConfigMap’s data (not kept in the slim copy)', configMap, { ...configMap, data: { a: 'edited' } }],
    ['a Deployment’s pod template (not kept)', deployment, { ...deployment, spec: { ...(deployment.spec as object), template: {} } }],
    ['an ownerReference (not kept)', configMap, { ...configMap, metadata: { ...metadata, ownerReferences: [] } }],
    ['a label', configMap, { ...configMap, metadata: { ...metadata, labels: { 'kubefed.io/managed': 'true' } } }],
  ])('tells a change of %s', (_title, before, after) => {
    expect(memberCopyFingerprint(slimOf(after))).not.toBe(memberCopyFingerprint(slimOf(before)));
  });
});
