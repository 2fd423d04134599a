/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- parsed API JSON is loose by design, as in the *.test.ts files */
/**
 * Object builders and Status assertions shared by the conformance test files.
 */
import { expect } from 'vitest';
import type { Json, RawResponse } from './conformance-target.js';

/** Assert a failure response: HTTP code and a `v1 Status` body with the same code and the reason. */
export function expectFailure(res: RawResponse, code: number, reason: string): Json {
  expect({ code: res.status, body: res.json }).toMatchObject({
    code,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason },
  });
  expect(typeof res.json.message).toBe('string');
  return res.json;
}

/** Assert a success status code, showing the body when it is not. */
export function expectCode(res: RawResponse, code: number): Json {
  expect({ code: res.status, body: res.json ?? res.text }).toMatchObject({ code });
  return res.json;
}

export function configMap(
  namespace: string,
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) },
    data,
  };
}

export function deployment(namespace: string, name: string, replicas = 1): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: 'app', image: 'registry.k8s.io/pause:3.9' },
            { name: 'sidecar', image: 'registry.k8s.io/pause:3.9', args: ['--sidecar'] },
          ],
        },
      },
    },
  };
}

/** Compare resourceVersions as integers (kube-sim and etcd both use a global integer revision). */
export function rvNumber(rv: unknown): bigint {
  expect(typeof rv).toBe('string');
  return BigInt(rv as string);
}
