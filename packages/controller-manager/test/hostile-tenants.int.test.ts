// What one tenant's object or one member's answer can do to the controller manager, through the
// real processes (the kube-sim CLI, Redis, `kubefedctl join`/`enable`, a controller-manager
// process with its real logger). Each case is an attack a security review ran against a demo
// federation; docs/operations.md ("Who can write what") lists what each role can and cannot do.
import { RESOURCES } from '@kubefed/api';
import { describe, expect, it } from 'vitest';
import { consistently } from '@kubefed/testing';
import {
  configMapName,
  createFederatedConfigMaps,
  FEDERATED_CONFIG_MAPS,
  FEDERATED_NAMESPACES,
  followWatch,
  processFederationFixtures,
} from './process-federation.js';

/** The log line cap of the controller manager's logger (`MAX_LOG_LINE_CHARS` of @kubefed/runtime). */
const MAX_LOG_LINE_CHARS = 32_768;

const { federation, afterTest } = processFederationFixtures();

interface ClusterStatus {
  name: string;
  status?: string;
}
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

describe('a tenant or a member that quotes megabytes back', () => {
  it('keeps serving health and propagating others while a member refuses a copy with a 100 KB message', async () => {
    const fed = await federation();
    // At debug level every failed attempt is logged with its error, as an operator chasing a
    // tenant's problem would run it.
    const cm = await fed.startControllerManager(['--log-level', 'debug']);
    await fed.waitForReady(30_000);
    const ns = 'hostile';
    await createFederatedConfigMaps(fed, ns, 0);
    const host = fed.client('host');
    const federated = host.resource(FEDERATED_CONFIG_MAPS, ns);
    // The member's API server refuses the invalid label value and quotes it whole in its
    // Status message (as kube-apiserver does): 100 KB of `a.`, the text that made the old
    // credential redaction of every log line quadratic (64 KB took 10 s, this would take minutes).
    const quoted = 'a.'.repeat(50_000);
    const placement = { clusters: fed.members.map((name) => ({ name })) };
    await federated.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'quoted', namespace: ns },
      spec: {
        template: { data: { a: 'b' } },
        placement,
        overrides: [{ clusterName: 'member1', clusterOverrides: [{ path: '/metadata/labels', value: { quoted } }] }],
      },
    });
    await expect
      .poll(
        async () => {
          const status = (await federated.get('quoted')).status as { clusters?: ClusterStatus[] } | undefined;
          return Object.fromEntries((status?.clusters ?? []).map((c) => [c.name, c.status]));
        },
        { timeout: 30_000, interval: 200 },
      )
      .toMatchObject({ member1: 'CreationFailed' });

    // The process answers and goes on with other objects.
    await federated.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'after', namespace: ns },
      spec: { template: { data: { a: 'b' } }, placement },
    });
    for (const [member, name] of fed.members.flatMap((m) => ['after', ...(m === 'member1' ? [] : ['quoted'])].map((n) => [m, n] as const)))
      await expect
        .poll(async () => (await fed.client(member).resource(RESOURCES.configMaps, ns).list()).items.map((o) => o.metadata.name), {
          timeout: 30_000,
          interval: 200,
        })
        .toContain(name);
    const { health } = JSON.parse(await cm.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true })) as { health: string };
    expect((await fetch(`${health}/healthz`)).status).toBe(200);
    expect(cm.running).toBe(true);

    // What was echoed is bounded: the condition, the Warning event and every log line.
    const conditions = ((await federated.get('quoted')).status as { conditions?: Condition[] }).conditions ?? [];
    const propagation = conditions.find((c) => c.type === 'Propagation');
    expect(propagation).toMatchObject({ status: 'False', reason: 'CheckClusters' });
    const events = (await host.resource(RESOURCES.events, ns).list()).items as unknown as {
      involvedObject: { name: string };
      message: string;
    }[];
    const about = events.filter((e) => e.involvedObject.name === 'quoted');
    expect(about.length).toBeGreaterThan(0);
    for (const e of about) expect(e.message.length).toBeLessThanOrEqual(1100);
    const failureLines = cm.lines.filter((l) => /"msg":"sync job (attempt failed|failed for good)/.test(l) && l.includes('quoted'));
    expect(failureLines.length).toBeGreaterThan(0);
    for (const line of cm.lines) expect(line.length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    for (const line of failureLines) expect(line.length).toBeLessThan(12_000);
  }, 120_000);
});

describe('a member that deletes each copy right after its creation', () => {
  it('creates the copy at most 3 times a minute and reports CreationFailed with what the member did', async () => {
    const fed = await federation();
    await fed.startControllerManager();
    await fed.waitForReady(30_000);
    const ns = 'vanishing';
    await createFederatedConfigMaps(fed, ns, 0);
    // A controller of member1 deletes the copy as soon as it appears (as the garbage collector
    // does with a copy whose owner is missing there): each ADDED is a create by the controller manager.
    const copies = fed.client('member1').resource(RESOURCES.configMaps, ns);
    const abort = new AbortController();
    let creates = 0;
    const deletes: Promise<unknown>[] = [];
    const watching = followWatch(copies, undefined, abort.signal, (event) => {
      if (event.type !== 'ADDED' || event.object.metadata.name !== 'vanishing') return;
      creates++;
      deletes.push(copies.delete('vanishing').catch(() => undefined));
    });
    afterTest(async () => {
      abort.abort();
      await watching;
      await Promise.all(deletes);
    });
    const federated = fed.client('host').resource(FEDERATED_CONFIG_MAPS, ns);
    await federated.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedConfigMap',
      metadata: { name: 'vanishing', namespace: ns },
      spec: { template: { data: { a: 'b' } }, placement: { clusters: fed.members.map((name) => ({ name })) } },
    });
    await expect.poll(() => creates, { timeout: 30_000, interval: 100 }).toBe(3);
    await expect
      .poll(
        async () => {
          const status = (await federated.get('vanishing')).status as { clusters?: ClusterStatus[] } | undefined;
          return status?.clusters?.find((c) => c.name === 'member1')?.status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe('CreationFailed');
    // Without the bound the copy was created again at once, about 6 times a second.
    await consistently(() => expect(creates).toBe(3), { durationMs: 10_000, intervalMs: 200, message: 'creates of a vanishing copy' });
    const events = (await fed.client('host').resource(RESOURCES.events, ns).list()).items as unknown as {
      involvedObject: { name: string };
      message: string;
    }[];
    expect(events.some((e) => e.involvedObject.name === 'vanishing' && e.message.includes('deleted the copy 3 times within 60 s'))).toBe(
      true,
    );
    // member2 has its copy, written once.
    expect((await fed.client('member2').resource(RESOURCES.configMaps, ns).get('vanishing')).metadata.name).toBe('vanishing');
  }, 120_000);
});

describe('a tenant who may write FederatedNamespaces in their own namespace', () => {
  const ENFORCE = 'pod-security.kubernetes.io/enforce';

  it('cannot lift a member Namespace to privileged, and an adopted Namespace keeps its labels, unless the KubeFedConfig allows it', async () => {
    const fed = await federation();
    await fed.startControllerManager();
    await fed.waitForReady(30_000);
    const ns = 'tenant-a';
    const host = fed.client('host');
    // The member admin made member1's Namespace restricted, with labels of their own.
    await fed
      .client('member1')
      .resource(RESOURCES.namespaces)
      .create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { [ENFORCE]: 'restricted', 'cost-center': 'c-17' } },
      });
    await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const federatedNamespaces = host.resource(FEDERATED_NAMESPACES, ns);
    await federatedNamespaces.create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: {
        template: { metadata: { labels: { [ENFORCE]: 'privileged', team: 'a' } } },
        placement: { clusters: fed.members.map((name) => ({ name })) },
      },
    });
    const labelsIn = async (member: string): Promise<Record<string, string> | undefined> =>
      (await fed.client(member).resource(RESOURCES.namespaces).get(ns)).metadata.labels;
    const statuses = async (): Promise<Record<string, string | undefined>> => {
      const status = (await federatedNamespaces.get(ns)).status as { clusters?: ClusterStatus[] } | undefined;
      return Object.fromEntries((status?.clusters ?? []).map((c) => [c.name, c.status]));
    };
    await expect.poll(() => labelsIn('member1'), { timeout: 30_000, interval: 200 }).toMatchObject({ team: 'a' });
    expect(await labelsIn('member1')).toEqual({
      [ENFORCE]: 'restricted',
      'cost-center': 'c-17',
      team: 'a',
      'kubefed.io/managed': 'true',
      'kubernetes.io/metadata.name': ns,
    });
    await expect.poll(() => labelsIn('member2'), { timeout: 30_000, interval: 200 }).toMatchObject({ team: 'a' });
    expect(await labelsIn('member2')).not.toHaveProperty(ENFORCE);
    await expect
      .poll(statuses, { timeout: 30_000, interval: 200 })
      .toEqual({ member1: 'PodSecurityLabelsNotAllowed', member2: 'PodSecurityLabelsNotAllowed' });
    const events = (await host.resource(RESOURCES.events, ns).list()).items as unknown as { reason: string; message: string }[];
    expect(events.filter((e) => e.reason === 'PodSecurityLabelsNotAllowed').map((e) => e.message)).toContain(
      `labels ${ENFORCE} were not set: the KubeFedConfig does not allow FederatedNamespaces to set Pod Security labels on member ` +
        'Namespaces (annotation kubefed.io/allow-pod-security-labels: "true"); they stay as the member has them',
    );

    // The opt-in: the federation's operator allows it, and the next change of the object applies it.
    await host
      .resource(RESOURCES.kubeFedConfigs, fed.namespace)
      .patch('kubefed', { metadata: { annotations: { 'kubefed.io/allow-pod-security-labels': 'true' } } }, 'merge');
    await expect
      .poll(
        async () => {
          const current = await federatedNamespaces.get(ns);
          const spec = current.spec as { template: { metadata: { labels: Record<string, string> } } };
          if (spec.template.metadata.labels.team === 'a')
            await federatedNamespaces.patch(ns, { spec: { template: { metadata: { labels: { team: 'b' } } } } }, 'merge');
          return { member1: (await labelsIn('member1'))?.[ENFORCE], member2: (await labelsIn('member2'))?.[ENFORCE] };
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual({ member1: 'privileged', member2: 'privileged' });
    await expect
      .poll(async () => Object.values(await statuses()).filter((s) => s === 'PodSecurityLabelsNotAllowed'), {
        timeout: 30_000,
        interval: 200,
      })
      .toEqual([]);
  }, 120_000);
});

describe('a member admin who makes the managed copies huge', () => {
  it('turns that member Ready=False CacheBudgetExceeded and keeps propagating to the others', async () => {
    const fed = await federation();
    // A small budget so that the test needs few copies: 2 MiB of cached JSON per member.
    const cm = await fed.startControllerManager(['--member-cache-max-bytes', '2Mi']);
    await fed.waitForReady(30_000);
    const ns = 'huge-copies';
    await createFederatedConfigMaps(fed, ns, 12);
    const copies = fed.client('member2').resource(RESOURCES.configMaps, ns);
    await expect
      .poll(async () => (await copies.list({ labelSelector: 'kubefed.io/managed=true' })).items.length, { timeout: 30_000 })
      .toBe(12);
    // 12 annotations of 200 KB each (kube-apiserver's limit is 256 KiB per object): 2.4 MB that
    // the member watches would keep, as they keep every copy's annotations.
    for (let i = 0; i < 12; i++) {
      const name = configMapName(i);
      await copies.patch(name, { metadata: { annotations: { 'admin.example.com/padding': 'p'.repeat(200_000) } } }, 'merge');
    }
    const clusters = fed.client('host').resource(RESOURCES.kubeFedClusters, fed.namespace);
    await expect
      .poll(
        async () => {
          const conditions = ((await clusters.get('member2')).status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
          return conditions.find((c) => c.type === 'Ready');
        },
        { timeout: 30_000, interval: 200 },
      )
      .toMatchObject({
        status: 'False',
        reason: 'CacheBudgetExceeded',
        message: expect.stringMatching(/member cluster member2 holds more than 2\.0 MiB/),
      });
    expect(cm.lines.some((l) => l.includes('"msg":"member cluster over its cache budget: disengaged"') && l.includes('member2'))).toBe(
      true,
    );

    // member1 keeps syncing: a new object reaches it.
    await fed
      .client('host')
      .resource(FEDERATED_CONFIG_MAPS, ns)
      .create({
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedConfigMap',
        metadata: { name: 'after', namespace: ns },
        spec: { template: { data: { a: 'b' } }, placement: { clusters: fed.members.map((name) => ({ name })) } },
      });
    await expect
      .poll(async () => (await fed.client('member1').resource(RESOURCES.configMaps, ns).get('after')).metadata.name, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe('after');
    const readyOf = async (name: string): Promise<string | undefined> =>
      (((await clusters.get(name)).status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready')
        ?.status;
    expect(await readyOf('member1')).toBe('True');
    expect(cm.running).toBe(true);
  }, 120_000);
});
