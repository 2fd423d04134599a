import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseFederatedServiceStatus } from './federated-service-status.js';

describe('FederatedServiceStatus', () => {
  it('round-trips a realistic document exactly, keeping member service statuses', () => {
    const input = parse(`
apiVersion: core.kubefed.io/v1alpha1
kind: FederatedServiceStatus
metadata:
  name: web
  namespace: shop
  ownerReferences:
    - apiVersion: types.kubefed.io/v1beta1
      kind: FederatedService
      name: web
      uid: 9a8b7c6d-0000-4000-8000-000000000003
clusterStatus:
  - clusterName: cluster1
    status:
      loadBalancer:
        ingress:
          - ip: 203.0.113.7
            ports:
              - port: 80
                protocol: TCP
`);
    expect(stringify(parseFederatedServiceStatus(input))).toBe(stringify(input));
    const bad = structuredClone(input);
    delete bad.clusterStatus[0].status;
    expect(() => parseFederatedServiceStatus(bad)).toThrow(
      'FederatedServiceStatus "shop/web" is invalid: clusterStatus[0].status: Required value',
    );
  });
});
