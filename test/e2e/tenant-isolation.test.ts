// A tenant who may write FederatedNamespaces only in their own host namespace must never reach a
// member namespace that is not theirs: a FederatedNamespace named after another namespace (or a
// system namespace) is refused with InvalidName, and neither creating nor deleting it adopts,
// relabels or deletes anything in a member. The tenant acts through kubectl with a token of a
// ServiceAccount bound to a Role in their namespace only.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOrUndefined } from '@kubefed/client';
import { RESOURCES } from '@kubefed/api';
import { consistently, type LocalFederation, POLL } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { FEDERATED_NAMESPACES, kubectl, propagatedTo, propagationOf, succeeded } from './support/e2e-federation.js';

const TENANT = 'tenant-a';
const VICTIM = 'payments';
const PSA = { 'pod-security.kubernetes.io/enforce': 'restricted' };

const fed = useLocalFederation({ members: ['member1'], setup: tenantAndVictim });
let token: string;

/** A manifest file holding `objects` (JSON is YAML), for `kubectl apply -f`. */
async function manifest(...objects: object[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tenant-'));
  const file = join(dir, 'manifest.yaml');
  await writeFile(file, objects.map((o) => JSON.stringify(o)).join('\n'));
  return file;
}

/** Runs kubectl against the host as the tenant. */
const asTenant = (args: readonly string[]) => kubectl(fed, ['--token', token, ...args]);

/** The tenant's namespace, ServiceAccount, Role and token in the host; the victim's namespace and data in member1. */
async function tenantAndVictim(fed: LocalFederation): Promise<void> {
  const admin = (args: readonly string[]) => kubectl(fed, args).then((r) => succeeded(r, `kubectl ${args.join(' ')}`));
  await admin(['create', 'namespace', TENANT]);
  await admin(['create', 'serviceaccount', 'tenant', '-n', TENANT]);
  await admin([
    'create',
    'role',
    'federate',
    '-n',
    TENANT,
    '--verb=*',
    '--resource=federatednamespaces.types.kubefed.io,federatedconfigmaps.types.kubefed.io',
  ]);
  await admin(['create', 'rolebinding', 'federate', '-n', TENANT, '--role=federate', `--serviceaccount=${TENANT}:tenant`]);
  token = (await admin(['create', 'token', 'tenant', '-n', TENANT])).trim();
  // The victim's namespace in the member, with its own Pod Security label and a workload.
  await kubectl(fed, ['create', 'namespace', VICTIM], 'member1').then((r) => succeeded(r, 'create the victim namespace'));
  await kubectl(fed, ['label', 'namespace', VICTIM, ...Object.entries(PSA).map(([k, v]) => `${k}=${v}`)], 'member1').then((r) =>
    succeeded(r, 'label it'),
  );
  await kubectl(fed, ['create', 'configmap', 'ledger', '-n', VICTIM, '--from-literal=balance=100'], 'member1').then((r) =>
    succeeded(r, 'create its data'),
  );
}

const memberNamespace = (name: string) => getOrUndefined(fed.client('member1').resource(RESOURCES.namespaces), name);

describe('a tenant limited to their own namespace', () => {
  it('cannot write outside their namespace at all', async () => {
    const result = await asTenant([
      'apply',
      '-f',
      await manifest({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name: VICTIM, namespace: VICTIM },
        spec: { placement: { clusters: [{ name: 'member1' }] } },
      }),
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('forbidden');
  });

  it('cannot adopt, relabel or delete another member namespace through a FederatedNamespace named after it', async () => {
    const hostile = (name: string) => ({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name, namespace: TENANT },
      spec: { placement: { clusters: [{ name: 'member1' }] } },
    });
    succeeded(
      await asTenant(['apply', '-f', await manifest(hostile(VICTIM), hostile('kube-system'))]),
      'the tenant applies FederatedNamespaces in their own namespace',
    );
    const events = fed.client('host').resource(RESOURCES.events, TENANT);
    const invalidNames = async (): Promise<string[]> =>
      (await events.list()).items
        .filter((e) => (e as { reason?: string }).reason === 'InvalidName')
        .map((e) => String((e as { involvedObject?: { name?: string } }).involvedObject?.name))
        .sort();
    await expect.poll(invalidNames, POLL).toEqual(['kube-system', VICTIM]);

    await consistently(
      async () => {
        const victim = await memberNamespace(VICTIM);
        expect(victim?.metadata.labels).toMatchObject(PSA);
        expect(victim?.metadata.labels).not.toHaveProperty('kubefed.io/managed');
        expect((await memberNamespace('kube-system'))?.metadata.labels).not.toHaveProperty('kubefed.io/managed');
      },
      { durationMs: 2000, intervalMs: 200 },
    );

    succeeded(
      await asTenant(['delete', 'federatednamespaces.types.kubefed.io', VICTIM, '-n', TENANT, '--wait=true']),
      'the tenant deletes it',
    );
    expect(await getOrUndefined(fed.client('host').resource(FEDERATED_NAMESPACES, TENANT), VICTIM)).toBeUndefined();
    const after = await memberNamespace(VICTIM);
    expect(after?.metadata.deletionTimestamp).toBeUndefined();
    expect(after?.metadata.labels).toMatchObject(PSA);
    expect(await getOrUndefined(fed.client('member1').resource(RESOURCES.configMaps, VICTIM), 'ledger')).toBeDefined();
  }, 120_000);

  it('still federates their own namespace', async () => {
    succeeded(
      await asTenant([
        'apply',
        '-f',
        await manifest({
          apiVersion: 'types.kubefed.io/v1beta1',
          kind: 'FederatedNamespace',
          metadata: { name: TENANT, namespace: TENANT },
          spec: { placement: { clusters: [{ name: 'member1' }] } },
        }),
      ]),
      'the tenant federates their namespace',
    );
    await expect
      .poll(() => propagationOf(fed.client('host').resource(FEDERATED_NAMESPACES, TENANT), TENANT), POLL)
      .toEqual(propagatedTo(['member1']));
    expect((await memberNamespace(TENANT))?.metadata.labels).toMatchObject({ 'kubefed.io/managed': 'true' });
  }, 60_000);
});
