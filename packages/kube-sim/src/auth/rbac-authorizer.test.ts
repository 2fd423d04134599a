import { describe, expect, it } from 'vitest';
import { forbiddenMessage, type RequestAttributes, ruleAllows } from './rbac-authorizer.js';

const attrs = (over: Partial<RequestAttributes>): RequestAttributes => ({
  verb: 'get',
  resourceRequest: true,
  path: '',
  apiGroup: 'apps',
  resource: 'deployments',
  subresource: '',
  name: 'web',
  namespace: 'ns',
  ...over,
});

describe('RBAC rules', () => {
  it.each([
    [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }, attrs({}), true],
    [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, attrs({ verb: 'delete' }), true],
    [{ apiGroups: [''], resources: ['deployments'], verbs: ['get'] }, attrs({}), false],
    [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }, attrs({ subresource: 'status' }), false],
    [{ apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['update'] }, attrs({ subresource: 'status', verb: 'update' }), true],
    [{ apiGroups: ['apps'], resources: ['*/scale'], verbs: ['get'] }, attrs({ subresource: 'scale' }), true],
    [{ apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['other'], verbs: ['get'] }, attrs({}), false],
    [
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['list'] },
      attrs({ verb: 'list', name: '' }),
      false,
    ],
    [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }, attrs({ resourceRequest: false, path: '/metrics' }), true],
    [{ nonResourceURLs: ['/debug/*'], verbs: ['get'] }, attrs({ resourceRequest: false, path: '/debug/pprof' }), true],
  ])('rule %j on %j allows: %s', (rule, a, expected) => {
    expect(ruleAllows(rule, a)).toBe(expected);
  });

  it('words the Forbidden message like kube-apiserver', () => {
    const id = { user: 'system:serviceaccount:ns:sa', groups: [], admin: false };
    expect(forbiddenMessage(id, attrs({ verb: 'list', name: '' }))).toBe(
      'deployments.apps is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "deployments" in API group "apps" in the namespace "ns"',
    );
    expect(forbiddenMessage(id, attrs({ apiGroup: '', resource: 'nodes', namespace: '' }))).toBe(
      'nodes "web" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "nodes" in API group "" at the cluster scope',
    );
  });
});
