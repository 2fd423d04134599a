// kubefedctl migrate against kube-sim: the refusal while KubeFed's leader holds its lock (nothing
// written, the dry run still listing the plan), the token Secret binding of a Secret named by one
// KubeFedCluster and the skip of a shared one, a namespace without KubeFed, and --least-privilege
// narrowing a member's full-access role through its own token, and which installed CRDs it replaces. The whole takeover
// against real KubeFed is test/e2e/migrate.real.test.ts.
import { allCrds, API_VERSIONS, type CustomResourceDefinition } from '@kubefed/api';
import { connectionDigest, DynamicClient, isForbidden, type KubeFedClusterInput, type KubeObject } from '@kubefed/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimFederation, gvr } from './sim-federation.js';

const NS = 'kubefed-migrate';
const BINDING = 'kubefed.io/cluster-name';
const CONNECTION = 'kubefed.io/cluster-connection';
const LEADER = 'control-plane.alpha.kubernetes.io/leader';

let fed: SimFederation;

beforeAll(async () => {
  fed = await SimFederation.start(['host', 'member']);
  await fed.controlPlane('host', NS);
  const host = fed.client('host');
  for (const name of ['a-token', 'shared'])
    await host
      .resource(gvr.secrets, NS)
      .create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data: { token: 'dA==' } });
  for (const [name, secret] of [
    ['a', 'a-token'],
    ['b', 'shared'],
    ['c', 'shared'],
  ] as const)
    await host.resource(gvr.kubeFedClusters, NS).create({
      apiVersion: API_VERSIONS.core,
      kind: 'KubeFedCluster',
      metadata: { name, namespace: NS },
      spec: { apiEndpoint: `https://${name}.example:6443`, secretRef: { name: secret } },
    });
});

afterAll(async () => {
  await fed[Symbol.asyncDispose]();
});

const migrate = (...args: string[]) => fed.cli(['migrate', '--host-cluster-context', 'host', '--kubefed-namespace', NS, ...args]);

/** Writes KubeFed's lock ConfigMap in `namespace`, renewed `agoMs` ago with a lease of 15 s. */
async function lock(agoMs: number, namespace = NS): Promise<void> {
  const configMaps = fed.client('host').resource(gvr.configMaps, namespace);
  const record = JSON.stringify({
    holderIdentity: 'kubefed-controller-manager-5d9c_1f2e',
    leaseDurationSeconds: 15,
    acquireTime: new Date(Date.now() - 600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    renewTime: new Date(Date.now() - agoMs).toISOString().replace(/\.\d+Z$/, 'Z'),
    leaderTransitions: 0,
  });
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kubefed-controller-manager', namespace, annotations: { [LEADER]: record } },
  };
  const existing = await configMaps.get('kubefed-controller-manager').catch(() => undefined);
  if (existing === undefined) await configMaps.create(obj);
  else await configMaps.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion ?? '' } });
}

const annotations = async (secret: string) => (await fed.client('host').resource(gvr.secrets, NS).get(secret)).metadata.annotations ?? {};

describe('kubefedctl migrate', () => {
  it("refuses while KubeFed's leader holds its lock, naming it, and writes nothing; the dry run lists the plan first", async () => {
    await lock(1_000);
    const refused = await migrate();
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(
      "KubeFed's leader kubefed-controller-manager-5d9c_1f2e still holds the lock configmap/kubefed-controller-manager in kubefed-migrate",
    );
    expect(refused.stderr).toContain('wait until its lease has expired');
    expect(refused.stdout).not.toMatch(/ (annotated|deleted|created|replaced)$/m);
    expect(await annotations('a-token')).toEqual({});

    // Renewed again, as KubeFed's leader would: the first run may take longer than the lease on a busy machine.
    await lock(1_000);
    const dryRun = await migrate('--dry-run');
    expect(dryRun.code).toBe(1);
    expect(dryRun.stdout).toContain('secret/a-token annotated (dry run) (bound to cluster a)');
    expect(dryRun.stdout).toContain('secret/shared skipped: named by 2 KubeFedClusters (b, c)');
    expect(dryRun.stderr).toContain('still holds the lock');
    expect(await annotations('a-token')).toEqual({});
  });

  it('binds the Secret named by one KubeFedCluster once the lease has expired, leaves a shared one, and changes nothing when run again', async () => {
    await lock(60_000);
    const run = await migrate();
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('secret/a-token annotated (bound to cluster a)\n');
    expect(await annotations('a-token')).toEqual({
      [BINDING]: 'a',
      [CONNECTION]: connectionDigest({ apiEndpoint: 'https://a.example:6443' }),
    });
    expect(await annotations('shared')).toEqual({});
    const again = await migrate();
    expect(again, again.stderr).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('secret/a-token already bound to cluster a');
    expect(again.stdout).not.toMatch(/ (annotated|deleted|created|replaced)$/m);
  });

  it('exits 1 when the namespace holds no KubeFed installation', async () => {
    const r = await fed.cli(['migrate', '--host-cluster-context', 'host', '--kubefed-namespace', 'nothing-here']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no KubeFed installation in namespace nothing-here');
  });
});

describe('kubefedctl migrate --least-privilege', () => {
  const LP_NS = 'kubefed-migrate-lp';
  const ROLE = 'kubefed-controller-manager:member-host';
  const args = ['--host-cluster-context', 'host', '--kubefed-namespace', LP_NS];
  const rulesOf = async () => (await fed.client('member').resource(gvr.clusterRoles).get(ROLE))['rules'];

  it("replaces the member's full-access role by the least-privilege one, listing what it loses and gains first, and leaves it alone when run again", async () => {
    await fed.controlPlane('host', LP_NS);
    // A member joined with full access, as KubeFed's kubefedctl join does (`*` on `*.*`, `get` on every URL).
    const join = await fed.cli(['join', 'member', '--cluster-context', 'member', '--cluster-admin', ...args]);
    expect(join, join.stderr).toMatchObject({ code: 0 });
    expect((await fed.cli(['enable', 'configmaps', ...args])).code).toBe(0);
    await lock(60_000, LP_NS);
    const fullAccess = await rulesOf();
    expect(fullAccess).toContainEqual({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });

    const dryRun = await fed.cli(['migrate', '--least-privilege', '--dry-run', ...args]);
    expect(dryRun, dryRun.stderr).toMatchObject({ code: 0 });
    expect(dryRun.stdout).toContain(
      `clusterrole.rbac.authorization.k8s.io/${ROLE} in member narrowed (dry run): loses * *.*; get *; gains nothing\n`,
    );
    expect(dryRun.stdout).toContain("KubeFed's member service accounts\n");
    expect(await rulesOf()).toEqual(fullAccess);

    const run = await fed.cli(['migrate', '--least-privilege', ...args]);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain(`clusterrole.rbac.authorization.k8s.io/${ROLE} in member narrowed: loses * *.*; get *; gains nothing\n`);
    const role = await fed.client('member').resource(gvr.clusterRoles).get(ROLE);
    expect(role.metadata.labels).toMatchObject({ 'kubefed.io/least-privilege': 'true' });
    expect(role.metadata.annotations).toMatchObject({ 'kubefed.io/joined-cluster': 'member' });
    expect(role['rules']).toContainEqual({
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      apiGroups: [''],
      resources: ['configmaps'],
    });
    expect(JSON.stringify(role['rules'])).not.toContain('"*"');
    // The member token may use ConfigMaps, and nothing else any more.
    const kfc = await fed.client('host').resource(gvr.kubeFedClusters, LP_NS).get('member');
    using creds = await DynamicClient.forKubeFedCluster(fed.client('host'), kfc as unknown as KubeFedClusterInput);
    await creds.resource(gvr.configMaps, 'default').list();
    expect(
      isForbidden(
        await creds
          .resource(gvr.secrets, 'default')
          .list()
          .catch((e: unknown) => e),
      ),
    ).toBe(true);

    // The member token may not read its role now: the kubeconfig context named like the cluster does.
    const again = await fed.cli(['migrate', '--least-privilege', ...args]);
    expect(again, again.stderr).toMatchObject({ code: 0 });
    expect(again.stdout).toContain(`clusterrole.rbac.authorization.k8s.io/${ROLE} in member already least privilege`);
    expect(again.stdout).not.toMatch(/ (narrowed|annotated|deleted|created|replaced)/m);
  });
});

describe('kubefedctl migrate and the installed CRDs', () => {
  const CRD_NS = 'kubefed-migrate-crds';
  const crds = () => fed.client('host').resource(gvr.customResourceDefinitions);
  const ours = (name: string): CustomResourceDefinition => {
    const crd = allCrds().find((c) => c.metadata.name === name);
    if (crd === undefined) throw new Error(`no CRD ${name} of ours`);
    return structuredClone(crd);
  };
  type Version = {
    name: string;
    schema: { openAPIV3Schema: { description?: string; properties: Record<string, Record<string, unknown>> } };
  };
  const firstVersion = (crd: unknown) => ((crd as CustomResourceDefinition).spec.versions as unknown as Version[])[0]!;
  /** Ours with `spec` open (as a CRD that validates nothing in it): its schema differs from ours. */
  const openSpec = (name: string): KubeObject => {
    const crd = ours(name);
    firstVersion(crd).schema.openAPIV3Schema.properties['spec'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    return crd as unknown as KubeObject;
  };
  const federated = (resource: string, kind: string, name: string, spec: object): Promise<KubeObject> =>
    fed
      .client('host')
      .resource({ group: 'types.kubefed.io', version: 'v1beta1', resource }, CRD_NS)
      .create({ apiVersion: 'types.kubefed.io/v1beta1', kind, metadata: { name, namespace: CRD_NS }, spec });

  it('replaces a CRD differing from ours in descriptions, or in its schema when every stored object is valid under ours and reads the same; keeps one holding an object ours refuses', async () => {
    await fed.controlPlane('host', CRD_NS);
    await lock(60_000, CRD_NS);
    const described = ours('federatedsecrets.types.kubefed.io');
    firstVersion(described).schema.openAPIV3Schema.description = 'FederatedSecret as an older release described it';
    await crds().create(described as unknown as KubeObject);
    // Not FederatedConfigMaps: the least-privilege case above enabled configmaps, which installed our CRD.
    for (const name of ['federatedserviceaccounts.types.kubefed.io', 'federatedservices.types.kubefed.io'])
      await crds().create(openSpec(name));
    // Valid under ours.
    const placement = { clusters: [{ name: 'member' }] };
    await retry(() => federated('federatedserviceaccounts', 'FederatedServiceAccount', 'good', { template: {}, placement }));
    // Stored under the open schema, refused by ours: a placement must be an object.
    await retry(() => federated('federatedservices', 'FederatedService', 'bad', { template: {}, placement: 'everywhere' }));

    const migrate = (...flags: string[]) => fed.cli(['migrate', ...flags, '--host-cluster-context', 'host', '--kubefed-namespace', CRD_NS]);
    const dryRun = await migrate('--dry-run');
    expect(dryRun, dryRun.stderr).toMatchObject({ code: 0 });
    expect(dryRun.stdout).toContain(
      'customresourcedefinition/federatedsecrets.types.kubefed.io replaced (dry run) (descriptions and columns only)\n',
    );
    for (const name of ['federatedserviceaccounts', 'federatedservices'])
      expect(dryRun.stdout).toContain(
        `customresourcedefinition/${name}.types.kubefed.io replaced (dry run) if its stored object is valid under ours and reads the same (checked when migrate runs; else kept)\n`,
      );
    expect((await crds().list({ labelSelector: 'kubefed.io/migrate-check' })).items).toEqual([]);

    const run = await migrate();
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain(
      'customresourcedefinition/federatedserviceaccounts.types.kubefed.io replaced (its schema differs; all 1 stored object valid under ours and read the same)\n',
    );
    expect(run.stdout).toMatch(
      new RegExp(
        `^customresourcedefinition/federatedservices.types.kubefed.io kept: its schema differs from ours and ${CRD_NS}/bad is not valid under ours: .*placement`,
        'm',
      ),
    );
    expect(firstVersion(await crds().get('federatedsecrets.types.kubefed.io')).schema.openAPIV3Schema.description).toBe(
      firstVersion(ours('federatedsecrets.types.kubefed.io')).schema.openAPIV3Schema.description,
    );
    expect(firstVersion(await crds().get('federatedserviceaccounts.types.kubefed.io')).schema.openAPIV3Schema.properties['spec']).toEqual(
      firstVersion(ours('federatedserviceaccounts.types.kubefed.io')).schema.openAPIV3Schema.properties['spec'],
    );
    expect(firstVersion(await crds().get('federatedservices.types.kubefed.io')).schema.openAPIV3Schema.properties['spec']).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    // The temporary CRDs of the check are gone.
    expect((await crds().list({ labelSelector: 'kubefed.io/migrate-check' })).items).toEqual([]);
  });
});

/** Retries `fn` while a new CRD is not served yet. */
async function retry<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
