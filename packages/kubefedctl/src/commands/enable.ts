import { type DynamicClient, getOrUndefined, jsonEqual, type KubeObject, type ResourceMapping } from '@kubefed/client';
import {
  type CustomResourceDefinition,
  DEFAULT_FEDERATED_TYPES,
  type FederatedTypeConfig,
  federatedTypeConfigSchema,
  groupQualifiedName,
} from '@kubefed/api';
import { enableObjects, type EnableTarget, isEquivalentApi, typeDisplayName } from '../enable-objects.js';
import { KubefedctlError } from '../errors.js';
import type { Output } from '../output.js';
import { GVR } from '../resources.js';
import { type OpenApiV3Document, type TemplateSchema, templateSchemaFromCrd, templateSchemaFromOpenApi } from '../template-schema.js';
import { lookupType } from '../type-lookup.js';

/** Options of {@link enableType}. */
export interface EnableOptions {
  kubefedNamespace: string;
  /** Default `types.kubefed.io`. */
  federatedGroup?: string | undefined;
  /** Default `v1beta1`. */
  federatedVersion?: string | undefined;
  /** Target version (KubeFed's `--version`); default the group's preferred version. */
  targetVersion?: string | undefined;
  /**
   * Write nothing: {@link enableType} only computes the objects (`-o yaml`; discovery reads
   * happen); {@link applyEnable} makes its reads and refusals and prints its lines ending in `(dry run)`.
   */
  dryRun: boolean;
  /** How long to wait for the CRD to be Established; default 30 000 ms. */
  establishTimeoutMs?: number | undefined;
}

/** What {@link enableType} produced (and, unless dry run, wrote). */
export interface EnableResult {
  ftc: FederatedTypeConfig;
  crd: CustomResourceDefinition;
}

/** The OpenAPI v3 document of a group version, or undefined when the host serves none. */
async function openApiDocument(host: DynamicClient, group: string, version: string, out: Output): Promise<OpenApiV3Document | undefined> {
  const path = group === '' ? `/openapi/v3/api/${version}` : `/openapi/v3/apis/${group}/${version}`;
  try {
    const res = await host.raw(path);
    if (res.status !== 200) {
      out.debug(`GET ${path}: HTTP ${res.status}`);
      return undefined;
    }
    return JSON.parse(res.body) as OpenApiV3Document;
  } catch (e) {
    out.debug(`GET ${path} failed: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

/**
 * The template schema of a target, as KubeFed looks it up: from the target's CRD when it has a
 * group and a CRD `<plural>.<group>` exists, else from the host's OpenAPI v3 document of its
 * group-version.
 */
async function templateSchemaFor(
  host: DynamicClient,
  target: ResourceMapping,
  replicasHint: boolean,
  out: Output,
): Promise<TemplateSchema> {
  if (target.group !== '') {
    const crd = await getOrUndefined(host.resource(GVR.customResourceDefinitions), `${target.resource}.${target.group}`);
    if (crd !== undefined) return templateSchemaFromCrd(crd, target.version, replicasHint);
  }
  const doc = await openApiDocument(host, target.group, target.version, out);
  return templateSchemaFromOpenApi(doc, target, replicasHint);
}

/**
 * The objects `enable` writes for a looked-up target. `spec.template` gets the target's schema
 * ({@link templateSchemaFor}), typed but preserving unknown fields (see
 * `templateSchemaFromOpenApi`), or an object preserving unknown fields when none is found; the
 * schema also decides whether the CRD gets `spec.retainReplicas`.
 */
export async function objectsForTarget(
  host: DynamicClient,
  target: ResourceMapping,
  options: Pick<EnableOptions, 'kubefedNamespace' | 'federatedGroup' | 'federatedVersion'>,
  out: Output,
): Promise<EnableResult> {
  const known = DEFAULT_FEDERATED_TYPES.find((t) => t.group === target.group && t.pluralName === target.resource);
  const replicasHint = target.subresources.includes('scale') || known?.hasReplicas === true;
  const template = await templateSchemaFor(host, target, replicasHint, out);
  const name = groupQualifiedName({ pluralName: target.resource, group: target.group });
  out.debug(
    template.fromServer
      ? `${name}: spec.template has the target's schema; spec.retainReplicas ${template.hasReplicas ? 'added' : 'left out'}`
      : `${name}: spec.template preserves unknown fields, as ${template.reason ?? 'no schema was found'}; spec.retainReplicas ${template.hasReplicas ? 'added' : 'left out'} (from the /scale subresource)`,
  );
  const t: EnableTarget = {
    group: target.group,
    version: target.version,
    kind: target.kind,
    resource: target.resource,
    namespaced: target.namespaced,
    shortNames: target.shortNames,
  };
  return enableObjects(t, {
    kubefedNamespace: options.kubefedNamespace,
    federatedGroup: options.federatedGroup,
    federatedVersion: options.federatedVersion,
    templateSchema: template.schema,
    hasReplicas: template.hasReplicas,
  });
}

function conditionTrue(obj: KubeObject, type: string): boolean {
  const conditions = (obj['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === type && c.status === 'True');
}

/** Polls the CRD until its Established condition is True. */
async function waitEstablished(host: DynamicClient, name: string, timeoutMs: number, out: Output): Promise<void> {
  const client = host.resource(GVR.customResourceDefinitions);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await getOrUndefined(client, name);
    if (crd !== undefined && conditionTrue(crd, 'Established')) {
      out.debug(`customresourcedefinition ${name} is Established`);
      return;
    }
    if (Date.now() >= deadline) {
      throw new KubefedctlError(`customresourcedefinition "${name}" was not Established within ${Math.round(timeoutMs / 1000)}s`, {
        hint: `check the CRD's conditions with "kubectl get crd ${name} -o yaml"`,
      });
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function listFtcs(host: DynamicClient, ns: string): Promise<FederatedTypeConfig[]> {
  const list = await host.resource(GVR.federatedTypeConfigs, ns).listAll();
  return list.items.flatMap((i) => {
    const p = federatedTypeConfigSchema.safeParse(i);
    return p.success ? [p.data] : [];
  });
}

/** KubeFed's refusal to change the federated type of an enabled type (docs/kubefed-compatibility.md §3.4.4 step 2). */
function refuseOtherFederatedType(existing: FederatedTypeConfig | undefined, ftc: FederatedTypeConfig): void {
  if (existing === undefined) return;
  const a = existing.spec.federatedType;
  const b = ftc.spec.federatedType;
  if (a.pluralName !== b.pluralName || a.version !== b.version || (a.group ?? '') !== (b.group ?? '')) {
    const ftcName = ftc.metadata.name ?? '';
    throw new KubefedctlError(
      `Federation is already enabled for "${ftcName}" with federated type "${typeDisplayName(a)}". Changing the federated type to "${typeDisplayName(b)}" is not supported.`,
      { hint: `disable it first: kubefedctl disable ${ftcName} --delete-crd` },
    );
  }
}

/** KubeFed's refusals when the federated CRD exists already: an equivalent API or another FTC uses it (§3.4.4 step 3). */
async function refuseSharedCrd(host: DynamicClient, ftc: FederatedTypeConfig, crdName: string, ns: string): Promise<void> {
  const ftcName = ftc.metadata.name ?? '';
  for (const other of await listFtcs(host, ns)) {
    const otherName = other.metadata.name ?? '';
    if (isEquivalentApi(other.spec.targetType, ftc.spec.targetType)) {
      throw new KubefedctlError(
        `Failed to enable "${ftcName}". Federation of this type is already enabled for equivalent type "${typeDisplayName(other.spec.targetType)}" by FederatedTypeConfig "${ns}/${otherName}"`,
      );
    }
    const otherCrd = `${other.spec.federatedType.pluralName}.${other.spec.federatedType.group ?? ''}`;
    if (otherName !== ftcName && otherCrd === crdName) {
      throw new KubefedctlError(
        `Failed to enable federation of "${ftcName}" due to the FederatedTypeConfig for "${otherName}" already referencing a federated type CRD named "${crdName}". If these target types are distinct despite sharing the same kind, specifying a non-default --federated-group should allow "${ftcName}" to be enabled.`,
      );
    }
  }
}

/**
 * Writes the CRD and the FTC of one target (docs/kubefed-compatibility.md §3.4.4): checks that the kubefed
 * namespace exists and that an existing FTC does not use another federated type; creates or
 * replaces the CRD (refusing equivalent deprecated APIs and CRDs used by another FTC), waits
 * for it to be Established, then creates the FTC or merge-patches its spec (an existing
 * `statusCollection` is kept). Prints KubeFed's lines. With `options.dryRun` it makes the same
 * reads and refusals, writes nothing and ends each line in `(dry run)`, as kubectl does.
 */
export async function applyEnable(host: DynamicClient, objects: EnableResult, options: EnableOptions, out: Output): Promise<void> {
  const ns = options.kubefedNamespace;
  const { ftc, crd } = objects;
  const ftcName = ftc.metadata.name ?? '';
  const crdName = crd.metadata.name;
  const write = !options.dryRun;
  const suffix = write ? '' : ' (dry run)';
  if ((await getOrUndefined(host.resource(GVR.namespaces), ns)) === undefined) {
    throw new KubefedctlError(`KubeFed system namespace "${ns}" does not exist`, {
      hint: 'install the control plane first, or pass --kubefed-namespace',
    });
  }
  const ftcClient = host.resource(GVR.federatedTypeConfigs, ns);
  const existingRaw = await getOrUndefined(ftcClient, ftcName);
  const existing = existingRaw === undefined ? undefined : federatedTypeConfigSchema.safeParse(existingRaw).data;
  refuseOtherFederatedType(existing, ftc);

  const crdClient = host.resource(GVR.customResourceDefinitions);
  const existingCrd = await getOrUndefined(crdClient, crdName);
  if (existingCrd === undefined) {
    if (write) await crdClient.create(crd as unknown as KubeObject);
    out.info(`customresourcedefinition.apiextensions.k8s.io/${crdName} created${suffix}`);
  } else {
    await refuseSharedCrd(host, ftc, crdName, ns);
    if (write && !jsonEqual(existingCrd['spec'], crd.spec)) await crdClient.update({ ...existingCrd, spec: crd.spec });
    out.info(`customresourcedefinition.apiextensions.k8s.io/${crdName} updated${suffix}`);
  }
  if (write) await waitEstablished(host, crdName, options.establishTimeoutMs ?? 30_000, out);

  if (existingRaw === undefined) {
    if (write) await ftcClient.create(ftc as unknown as KubeObject);
    out.info(`federatedtypeconfig.core.kubefed.io/${ftcName} created in namespace ${ns}${suffix}`);
  } else {
    const spec: Record<string, unknown> = { ...ftc.spec };
    if (existing?.spec.statusCollection !== undefined) spec['statusCollection'] = existing.spec.statusCollection;
    if (write) await ftcClient.patch(ftcName, { spec }, 'merge');
    out.info(`federatedtypeconfig.core.kubefed.io/${ftcName} updated in namespace ${ns}${suffix}`);
  }
}

/**
 * `kubefedctl enable <type>`: looks the type up on the host, computes the FTC and CRD and,
 * unless `dryRun`, applies them ({@link applyEnable}). Rejects with `TypeNotFoundError` for an
 * unknown type and KubefedctlError for KubeFed's refusals.
 */
export async function enableType(host: DynamicClient, key: string, options: EnableOptions, out: Output): Promise<EnableResult> {
  const target = await lookupType(host.restMapper(), key, options.targetVersion);
  const objects = await objectsForTarget(host, target, options, out);
  if (!options.dryRun) await applyEnable(host, objects, options, out);
  return objects;
}

/** The FTC names of KubeFed's default types, as `enable --default-types` enables them. */
export const DEFAULT_TYPE_NAMES: readonly string[] = DEFAULT_FEDERATED_TYPES.map((t) => groupQualifiedName(t));
