import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { FieldRetentionError } from './errors.js';
import { retainClusterFields } from './retain-fields.js';

const obj = (metadata: KubeObject['metadata'], rest: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'x', ...metadata },
  ...rest,
});
const errorOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
};
const svcPort = (p: Record<string, unknown>) => p;

describe('retainClusterFields', () => {
  it.each<[string, string, boolean, KubeObject, KubeObject, KubeObject]>([
    [
      'keeps resourceVersion, finalizers and annotations of the member, replacing the desired ones (docs/kubefed-compatibility.md §4.4.6)',
      'ConfigMap',
      false,
      obj({ annotations: { mine: '1' }, finalizers: ['a'], resourceVersion: '1' }),
      obj({ annotations: { theirs: '2' }, finalizers: ['b'], resourceVersion: '42' }),
      obj({ annotations: { theirs: '2' }, finalizers: ['b'], resourceVersion: '42' }),
    ],
    [
      'removes desired annotations and finalizers the member does not have',
      'ConfigMap',
      false,
      obj({ annotations: { mine: '1' }, finalizers: ['a'] }),
      obj({ resourceVersion: '7' }),
      obj({ resourceVersion: '7' }),
    ],
    [
      'retains spec.replicas when retainReplicas is true',
      'Deployment',
      true,
      obj({}, { spec: { replicas: 5, paused: false } }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 9 } }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 9, paused: false } }),
    ],
    [
      'creates spec to retain replicas when the template has none',
      'Deployment',
      true,
      obj({}),
      obj({ resourceVersion: '3' }, { spec: { replicas: 2 } }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 2 } }),
    ],
    [
      'keeps the desired replicas when retainReplicas is false',
      'Deployment',
      false,
      obj({}, { spec: { replicas: 5 } }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 9 } }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 5 } }),
    ],
    [
      'keeps the desired replicas when the member has none',
      'Deployment',
      true,
      obj({}, { spec: { replicas: 5 } }),
      obj({ resourceVersion: '3' }, { spec: {} }),
      obj({ resourceVersion: '3' }, { spec: { replicas: 5 } }),
    ],
    [
      'retains Service clusterIP, clusterIPs and healthCheckNodePort',
      'Service',
      true,
      obj({}, { spec: { type: 'LoadBalancer', replicas: 1 } }),
      obj({ resourceVersion: '3' }, { spec: { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], healthCheckNodePort: 30100, replicas: 4 } }),
      obj(
        { resourceVersion: '3' },
        { spec: { type: 'LoadBalancer', replicas: 1, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], healthCheckNodePort: 30100 } },
      ),
    ],
    [
      'does not retain an empty clusterIP, empty clusterIPs or a zero healthCheckNodePort',
      'Service',
      false,
      obj({}, { spec: { clusterIP: 'None' } }),
      obj({ resourceVersion: '3' }, { spec: { clusterIP: '', clusterIPs: [], healthCheckNodePort: 0 } }),
      obj({ resourceVersion: '3' }, { spec: { clusterIP: 'None' } }),
    ],
    [
      'copies nodePort into desired ports matching name, protocol and port',
      'Service',
      false,
      obj(
        {},
        { spec: { ports: [svcPort({ name: 'http', protocol: 'TCP', port: 80 }), svcPort({ name: 'dns', protocol: 'UDP', port: 53 })] } },
      ),
      obj(
        { resourceVersion: '3' },
        {
          spec: {
            ports: [
              svcPort({ name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053 }),
              svcPort({ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }),
            ],
          },
        },
      ),
      obj(
        { resourceVersion: '3' },
        {
          spec: {
            ports: [
              svcPort({ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }),
              svcPort({ name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053 }),
            ],
          },
        },
      ),
    ],
    [
      'does not match a desired port without protocol to a member port defaulted to TCP (§4.4.6 note)',
      'Service',
      false,
      obj({}, { spec: { ports: [svcPort({ name: 'http', port: 80 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ name: 'http', port: 80 })] } }),
    ],
    [
      'matches unnamed ports when both lack a name',
      'Service',
      false,
      obj({}, { spec: { ports: [svcPort({ protocol: 'TCP', port: 80 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ protocol: 'TCP', port: 80, nodePort: 31000 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ protocol: 'TCP', port: 80, nodePort: 31000 })] } }),
    ],
    [
      'does not match ports with a different port number',
      'Service',
      false,
      obj({}, { spec: { ports: [svcPort({ name: 'http', protocol: 'TCP', port: 8080 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ name: 'http', protocol: 'TCP', port: 80, nodePort: 31000 })] } }),
      obj({ resourceVersion: '3' }, { spec: { ports: [svcPort({ name: 'http', protocol: 'TCP', port: 8080 })] } }),
    ],
    [
      'retains ServiceAccount secrets when the desired object has none',
      'ServiceAccount',
      true,
      obj({}, { secrets: [] }),
      obj({ resourceVersion: '3' }, { secrets: [{ name: 'token-abc' }] }),
      obj({ resourceVersion: '3' }, { secrets: [{ name: 'token-abc' }] }),
    ],
    [
      'keeps desired ServiceAccount secrets when set',
      'ServiceAccount',
      false,
      obj({}, { secrets: [{ name: 'mine' }] }),
      obj({ resourceVersion: '3' }, { secrets: [{ name: 'token-abc' }] }),
      obj({ resourceVersion: '3' }, { secrets: [{ name: 'mine' }] }),
    ],
    [
      'never retains replicas for a ServiceAccount',
      'ServiceAccount',
      true,
      obj({}),
      obj({ resourceVersion: '3' }, { spec: { replicas: 3 } }),
      obj({ resourceVersion: '3' }),
    ],
  ])('%s', (_title, targetKind, retainReplicas, desired, member, expected) => {
    const before = structuredClone(desired);
    expect(retainClusterFields(desired, member, { targetKind, retainReplicas, cluster: 'c1' })).toEqual(expected);
    expect(desired).toEqual(before);
  });

  it.each<[string, string, KubeObject, KubeObject, RegExp]>([
    [
      'a non-integer member spec.replicas',
      'Deployment',
      obj({}),
      obj({}, { spec: { replicas: '3' } }),
      /member \.spec\.replicas is "3", expected an integer/,
    ],
    ['a member spec that is not an object', 'Deployment', obj({}), obj({}, { spec: 'x' }), /member \.spec is not an object/],
    ['a non-string clusterIP', 'Service', obj({}), obj({}, { spec: { clusterIP: 5 } }), /clusterIP/],
    ['non-list member ports', 'Service', obj({}, { spec: { ports: [] } }), obj({}, { spec: { ports: {} } }), /member \.spec\.ports/],
    [
      'a desired port that is not an object',
      'Service',
      obj({}, { spec: { ports: [1] } }),
      obj({}, { spec: { ports: [] } }),
      /desired \.spec\.ports\.0/,
    ],
    ['non-list member secrets', 'ServiceAccount', obj({}), obj({}, { secrets: 'x' }), /member \.secrets/],
  ])('throws FieldRetentionError for %s', (_title, targetKind, desired, member, message) => {
    const err = errorOf(() => retainClusterFields(desired, member, { targetKind, retainReplicas: true, cluster: 'c1' }));
    expect(err).toBeInstanceOf(FieldRetentionError);
    expect(err).toMatchObject({ status: 'FieldRetentionFailed', cluster: 'c1' });
    expect((err as Error).message).toMatch(message);
  });
});
