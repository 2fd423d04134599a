// The template schema `kubefedctl enable` writes into a Federated<Kind> CRD (issue #38, item 4):
// the target's own schema (from the host's OpenAPI v3 for built-in kinds, from the target's CRD
// for custom resources), typed but keeping unknown fields, so that the host refuses a template of
// the wrong type at apply and `kubectl explain` describes it; and a re-run of `enable` over the
// open template schema of an older CRD (or of the Helm chart's) replaces it. On the kube-sim CLI
// and, in the vitest project `real`, on real control planes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFederatedTypeConfig, buildFederatedTypeCrd, RESOURCES } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import { POLL, uniqueName } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { describe, expect, it } from 'vitest';
import { FEDERATED_DEPLOYMENTS, federated, kubectl, succeeded } from './support/e2e-federation.js';

const fed = useLocalFederation({ members: [], controllerManager: false, join: false, types: [] });

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** `spec.template` of the served version of a federated CRD. */
async function templateSchema(crdName: string): Promise<Schema | undefined> {
  const crd = await fed.client('host').resource(RESOURCES.customResourceDefinitions).get(crdName);
  const versions = (crd['spec'] as { versions: { schema: { openAPIV3Schema: Schema } }[] }).versions;
  return versions[0]?.schema.openAPIV3Schema.properties?.['spec']?.properties?.['template'];
}

/** The message a create is refused with, or undefined when it is accepted. */
async function refusal(create: Promise<unknown>): Promise<string | undefined> {
  return create.then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
}

async function namespace(): Promise<string> {
  const ns = uniqueName('tmpl');
  await fed
    .client('host')
    .resource(RESOURCES.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return ns;
}

/** A temporary directory, removed when disposed. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'kubefed-tmpl-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const federatedDeployment = (ns: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedDeployment',
  metadata: { name, namespace: ns },
  spec: { template: { metadata: { labels: { app: name }, annotations: { note: 'kept' } }, spec }, placement: { clusters: [] } },
});

const podSpec = {
  containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '100m', memory: 1048576 } } }],
};

describe('the template schema of federated types', () => {
  it('types FederatedDeployment templates from the host OpenAPI: a wrong type is refused naming the field, a valid one is kept whole', async () => {
    succeeded(await fed.kubefedctl(['enable', 'deployments.apps']), 'kubefedctl enable deployments.apps');
    const template = await templateSchema('federateddeployments.types.kubefed.io');
    expect(template?.properties?.['spec']?.properties?.['replicas']?.type).toBe('integer');
    const podProps = template?.properties?.['spec']?.properties?.['template']?.properties?.['spec']?.properties;
    expect(podProps?.['containers']?.items?.properties?.['image']?.type).toBe('string');
    expect(template?.properties?.['metadata']).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });

    const ns = await namespace();
    const fds = fed.client('host').resource(FEDERATED_DEPLOYMENTS, ns);
    const bad = federatedDeployment(ns, 'bad', { replicas: 'two', template: { spec: podSpec } });
    const message = await refusal(fds.create(bad));
    expect(message).toContain('spec.template.spec.replicas');
    expect(message).toContain('must be of type integer');

    const spec = {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      // A field the host's version does not know (a newer member's might) is kept, not pruned.
      fieldOfANewerVersion: { enabled: true },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
    };
    await fds.create(federatedDeployment(ns, 'web', spec));
    const got = await fds.get('web');
    expect((got['spec'] as { template: unknown }).template).toEqual({
      metadata: { labels: { app: 'web' }, annotations: { note: 'kept' } },
      spec,
    });

    // kubectl apply computes its patch from the published schema: a second apply prints no warning.
    await using dir = await tempDir();
    const file = join(dir.path, 'fd.json');
    const applied = federatedDeployment(ns, 'applied', spec);
    await writeFile(file, JSON.stringify(applied));
    succeeded(await kubectl(fed, ['apply', '-f', file]), 'kubectl apply');
    (applied['spec'] as { template: { spec: { replicas: number } } }).template.spec.replicas = 3;
    await writeFile(file, JSON.stringify(applied));
    expect(await kubectl(fed, ['apply', '-f', file])).toMatchObject({
      code: 0,
      stdout: 'federateddeployment.types.kubefed.io/applied configured\n',
      stderr: '',
    });

    const explained = succeeded(await kubectl(fed, ['explain', 'federateddeployments.spec.template.spec.replicas']), 'kubectl explain');
    expect(explained).toMatch(/FIELD:\s+replicas\s+<integer>/);
  });

  it('copies the schema of a CRD-backed target from its CRD', async () => {
    const group = `${uniqueName('widgets')}.example.com`;
    const crds = fed.client('host').resource(RESOURCES.customResourceDefinitions);
    await crds.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    required: ['size'],
                    properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string', enum: ['red', 'blue'] } },
                  },
                },
              },
            },
          },
        ],
      },
    });
    await expect.poll(async () => (await fed.kubefedctl(['enable', `widgets.${group}`, '--federated-group', group])).code, POLL).toBe(0);
    const template = await templateSchema(`federatedwidgets.${group}`);
    expect(template?.properties?.['spec']?.properties?.['size']).toEqual({ type: 'integer' });
    expect(template?.properties?.['spec']?.properties?.['color']).toEqual({ type: 'string' });

    const ns = await namespace();
    const fws = fed.client('host').resource({ group, version: 'v1beta1', resource: 'federatedwidgets' }, ns);
    const widget = (name: string, size: unknown): KubeObject => ({
      apiVersion: `${group}/v1beta1`,
      kind: 'FederatedWidget',
      metadata: { name, namespace: ns },
      spec: { template: { spec: { size } } },
    });
    expect(await refusal(fws.create(widget('big', 'big')))).toContain('spec.template.spec.size');
    await fws.create(widget('small', 1));
  });

  it('replaces the open template schema of an existing federated CRD when enable runs again', async () => {
    const type = {
      group: 'apps',
      version: 'v1',
      kind: 'ReplicaSet',
      pluralName: 'replicasets',
      scope: 'Namespaced' as const,
      hasReplicas: true,
    };
    const host = fed.client('host');
    // What an older kubefedctl (or KubeFed, or the Helm chart) wrote: spec.template keeps unknown fields.
    await host.resource(RESOURCES.customResourceDefinitions).create(buildFederatedTypeCrd(type) as unknown as KubeObject);
    await host
      .resource(RESOURCES.federatedTypeConfigs, fed.namespace)
      .create(buildFederatedTypeConfig(type, fed.namespace) as unknown as KubeObject);
    expect(await templateSchema('federatedreplicasets.types.kubefed.io')).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });

    const ns = await namespace();
    const frs = host.resource(federated('federatedreplicasets'), ns);
    const rs = (name: string, replicas: unknown): KubeObject => ({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedReplicaSet',
      metadata: { name, namespace: ns },
      spec: { template: { spec: { replicas, selector: { matchLabels: { app: name } } } } },
    });
    await frs.create(rs('before', 'two'));

    const r = succeeded(await fed.kubefedctl(['enable', 'replicasets.apps']), 'kubefedctl enable replicasets.apps');
    expect(r).toContain('customresourcedefinition.apiextensions.k8s.io/federatedreplicasets.types.kubefed.io updated');
    expect((await templateSchema('federatedreplicasets.types.kubefed.io'))?.properties?.['spec']?.properties?.['replicas']?.type).toBe(
      'integer',
    );
    // The API server serves the new schema a moment after the update.
    await expect
      .poll(async () => (await refusal(frs.create(rs(uniqueName('after'), 'two')))) ?? 'accepted', POLL)
      .toContain('spec.template.spec.replicas');
  });
});
