import { request } from 'node:https';
import { DynamicClient, Kubeconfig } from '@kubefed/client';
import { generateClusterPki } from '@kubefed/kube-sim';
import { KubeMetricsAuthorizer, Manager } from '@kubefed/runtime';
import { expect, it, vi } from 'vitest';

const RBAC = (resource: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });

/** GET `url` over TLS trusting `ca`, with an optional bearer token: status and body. */
function get(url: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The secure metrics cases against the API server whose admin kubeconfig `kubeconfigYaml` gives
 * (kube-sim in `metrics-auth.int.test.ts`, kube-apiserver in `metrics-auth.real.test.ts`).
 */
export function metricsAuthSuite(kubeconfigYaml: () => string): void {
  it('serves /metrics over TLS only to a token the host authenticates whose user may get /metrics: 401 without or with a bad token, 403 without the grant', async () => {
    using host = DynamicClient.fromKubeconfig(Kubeconfig.fromString(kubeconfigYaml()), { qps: 0 });
    await host
      .resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'default')
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'prometheus' } });
    const secrets = host.resource({ group: '', version: 'v1', resource: 'secrets' }, 'default');
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'prometheus-token', annotations: { 'kubernetes.io/service-account.name': 'prometheus' } },
    });
    const token = await vi.waitFor(
      async () => {
        const data = (await secrets.get('prometheus-token'))['data'] as Record<string, string> | undefined;
        if (data?.['token'] === undefined) throw new Error('token not filled in yet');
        return Buffer.from(data['token'], 'base64').toString();
      },
      { timeout: 30_000, interval: 100 },
    );

    const pki = generateClusterPki('metrics');
    const manager = new Manager({
      healthAddress: '127.0.0.1:0',
      metricsAddress: '127.0.0.1:0',
      metricsAuth: new KubeMetricsAuthorizer(host, { cacheTtlMs: 0 }),
      metricsTls: { cert: pki.certPem, key: pki.keyPem },
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      const { metrics } = await manager.serving();
      expect(metrics).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const url = `${metrics ?? ''}/metrics`;
      expect(await get(url, pki.caCertPem)).toEqual({ status: 401, body: 'Unauthorized\n' });
      expect((await get(url, pki.caCertPem, `${token.slice(0, -4)}AAAA`)).status).toBe(401);
      expect(await get(url, pki.caCertPem, token)).toEqual({ status: 403, body: 'Forbidden\n' });

      await host.resource(RBAC('clusterroles')).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'metrics-reader' },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      });
      await host.resource(RBAC('clusterrolebindings')).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'prometheus-metrics-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'default' }],
      });
      await expect.poll(async () => (await get(url, pki.caCertPem, token)).status, { timeout: 10_000, interval: 100 }).toBe(200);
      expect((await get(url, pki.caCertPem, token)).body).toContain('# TYPE');
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);
}
