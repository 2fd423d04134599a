// KubeFed's legacy FederatedService status through the real processes: the kube-sim CLI (or real
// clusters), Redis, `kubefedctl join` and `enable`, and the kubefed-controller-manager process.
// With the KubeFedConfig gate RawResourceStatusCollection Disabled and the `services` FTC given a
// statusType and statusCollection Enabled, the controller manager writes a FederatedServiceStatus
// per FederatedService with the status of the propagated Service in every member
// (docs/kubefed-compatibility.md §4.5), and the garbage collector removes it with its owner.
import { getOrUndefined } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { POLL, uniqueName } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createFederatedNamespace, federated, propagatedTo, propagationOf } from './support/e2e-federation.js';

const MEMBERS = ['member1', 'member2'] as const;
const FEDERATED_SERVICES = federated('federatedservices');
const SERVICE_STATUSES = { group: 'core.kubefed.io', version: 'v1alpha1', resource: 'federatedservicestatuses' };
const FTCS = RESOURCES.federatedTypeConfigs;

describe('FederatedServiceStatus', () => {
  const fed = useLocalFederation({ members: MEMBERS, types: ['namespaces', 'services'] });

  it('lists the Service status of every member while RawResourceStatusCollection is Disabled, and goes with its FederatedService', async () => {
    const host = fed.client('host');
    await host
      .resource(RESOURCES.kubeFedConfigs, fed.namespace)
      .patch('kubefed', [{ op: 'replace', path: '/spec/featureGates', value: featureGates('Disabled') }], 'json');
    await host.resource(FTCS, fed.namespace).patch(
      'services',
      {
        spec: {
          statusType: {
            group: 'core.kubefed.io',
            version: 'v1alpha1',
            kind: 'FederatedServiceStatus',
            pluralName: 'federatedservicestatuses',
            scope: 'Namespaced',
          },
          statusCollection: 'Enabled',
        },
      },
      'merge',
    );
    await expect
      .poll(async () => (await host.resource(FTCS, fed.namespace).get('services')).status, POLL)
      .toMatchObject({
        statusController: 'Running',
      });

    const ns = uniqueName('svc-status');
    await createFederatedNamespace(fed, ns, MEMBERS);
    const services = host.resource(FEDERATED_SERVICES, ns);
    await services.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedService',
      metadata: { name: 'web' },
      spec: {
        template: { spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
        placement: { clusters: MEMBERS.map((name) => ({ name })) },
      },
    });
    await expect.poll(() => propagationOf(services, 'web'), POLL).toEqual(propagatedTo(MEMBERS));
    const statuses = host.resource(SERVICE_STATUSES, ns);
    // A ClusterIP Service's status has an empty load balancer on either substrate. Every Ready
    // cluster has an entry, an empty status where there is no copy (the host, when it is a member).
    const placed = new Set<string>(MEMBERS);
    await expect
      .poll(async () => (await getOrUndefined(statuses, 'web'))?.clusterStatus, POLL)
      .toEqual([...fed.joined].sort().map((clusterName) => ({ clusterName, status: placed.has(clusterName) ? { loadBalancer: {} } : {} })));
    const owner = await services.get('web');
    expect((await statuses.get('web')).metadata.ownerReferences).toEqual([
      { apiVersion: 'types.kubefed.io/v1beta1', kind: 'FederatedService', name: 'web', uid: owner.metadata.uid },
    ]);

    await services.delete('web');
    await expect.poll(() => getOrUndefined(statuses, 'web'), POLL).toBeUndefined();

    // The gate back on (the default here): the status controller stops.
    await host
      .resource(RESOURCES.kubeFedConfigs, fed.namespace)
      .patch('kubefed', [{ op: 'replace', path: '/spec/featureGates', value: featureGates('Enabled') }], 'json');
    await expect
      .poll(async () => (await host.resource(FTCS, fed.namespace).get('services')).status, POLL)
      .toMatchObject({
        statusController: 'NotRunning',
      });
  });
});

/** Every feature gate with its default here, RawResourceStatusCollection as given. */
function featureGates(rawResourceStatusCollection: 'Enabled' | 'Disabled'): { name: string; configuration: string }[] {
  return [
    { name: 'PushReconciler', configuration: 'Enabled' },
    { name: 'RawResourceStatusCollection', configuration: rawResourceStatusCollection },
    { name: 'SchedulerPreferences', configuration: 'Enabled' },
  ];
}
