import { type FederatedTypeConfig, federatedTypeConfigSchema, groupQualifiedName } from '@kubefed/api';
import { type DynamicClient, getOrUndefined, isAlreadyExists, isNotFound, type KubeObject, type ResourceMapping } from '@kubefed/client';
import {
  contentsSkipOf,
  formatContentsSkips,
  neverFederatedReason,
  qualifiedResource,
  reportedNeverFederatedTypes,
  type SkippedObject,
  type SkippedType,
} from '../contents-skip.js';
import { enableObjects } from '../enable-objects.js';
import { KubefedctlError, UsageError } from '../errors.js';
import { contentsTypes, defaultFederatedType, federatedObjectFor, type FederatedTypeInfo, qualifiedName } from '../federate-objects.js';
import type { Output } from '../output.js';
import { GVR } from '../resources.js';
import { lookupType } from '../type-lookup.js';
import { applyEnable, enableType } from './enable.js';

/** Options of {@link federateResource}. */
export interface FederateOptions {
  /** The target type as the user typed it (plural, kind, short name, `plural.group` ...). */
  type: string;
  /** The target object's name. */
  name: string;
  /** Namespace of a namespaced target. */
  namespace: string;
  kubefedNamespace: string;
  /** Enable the type (and, with `contents`, every contained type) when its FTC is missing. */
  enableType: boolean;
  /** Only a Namespace: also federate every object in it, except what {@link contentsSkipOf} leaves out. */
  contents: boolean;
  /** With `contents`: also federate objects that have a controller owner reference. Default false. */
  includeOwned?: boolean | undefined;
  /** `-o yaml`: compute the federated objects, write nothing. */
  dryRun: boolean;
  /** Group of the federated types assumed or enabled when an FTC is missing; default `types.kubefed.io`. */
  federatedGroup?: string | undefined;
  /** Extra resource types `--contents` skips (names, kinds, plural.group or whole groups). */
  skipApiResources?: readonly string[] | undefined;
  /** How long a create retries while the federated type is not yet served; default 10 000 ms. */
  createRetryMs?: number | undefined;
  /**
   * Runs with the FTC of a type `enableType` is about to write, before it is written (kubefedctl:
   * grant it to least-privilege members first). Default none.
   */
  beforeEnable?: ((ftc: FederatedTypeConfig) => Promise<void>) | undefined;
}

/** What {@link federateResource} did. */
export interface FederateOutcome {
  /** The federated objects created (or, in dry run, computed), in order. */
  results: FederatedResult[];
  /** FTC names `--enable-type` enabled on the way. */
  enabledTypes: string[];
  /** What `contents` left out: objects by name, never-federated types by count (empty without `contents`). */
  skipped: { objects: SkippedObject[]; types: SkippedType[] };
}

/** One federated object `federate` created (or, in dry run, would create). */
export interface FederatedResult {
  object: KubeObject;
  /** `Federated<Kind> "<ns/name>" from <Kind>`. */
  description: string;
}

function typeInfoOf(ftc: FederatedTypeConfig): FederatedTypeInfo {
  const f = ftc.spec.federatedType;
  return { group: f.group ?? '', version: f.version, kind: f.kind, namespaced: f.scope === 'Namespaced' };
}

interface Work {
  target: KubeObject;
  type: FederatedTypeInfo;
  plural: string;
}

/**
 * Finds the FTC of a target type; when missing: enables the type (`enableType`), assumes
 * the default FTC (`dryRun`), or fails naming the type with KubeFed's hint.
 */
async function federatedTypeFor(
  host: DynamicClient,
  target: ResourceMapping,
  options: FederateOptions,
  out: Output,
  enabled: string[],
): Promise<{ info: FederatedTypeInfo; plural: string }> {
  const ftcName = groupQualifiedName({ pluralName: target.resource, group: target.group });
  const raw = await getOrUndefined(host.resource(GVR.federatedTypeConfigs, options.kubefedNamespace), ftcName);
  let ftc: FederatedTypeConfig | undefined;
  if (raw !== undefined) {
    const parsed = federatedTypeConfigSchema.safeParse(raw);
    if (!parsed.success)
      throw new KubefedctlError(
        `FederatedTypeConfig "${options.kubefedNamespace}/${ftcName}" is not valid: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    ftc = parsed.data;
  } else if (options.enableType) {
    out.progress(`enabling ${ftcName}: its FederatedTypeConfig is missing`);
    const enableOptions = { kubefedNamespace: options.kubefedNamespace, federatedGroup: options.federatedGroup, dryRun: options.dryRun };
    const planned = await enableType(host, ftcName, { ...enableOptions, dryRun: true }, out);
    if (!options.dryRun) await options.beforeEnable?.(planned.ftc);
    enabled.push(ftcName);
    // In a dry run this only reads, refuses what enable would refuse, and prints its lines.
    await applyEnable(host, planned, enableOptions, out);
    ftc = planned.ftc;
  } else if (options.dryRun) {
    ftc = enableObjects(
      {
        group: target.group,
        version: target.version,
        kind: target.kind,
        resource: target.resource,
        namespaced: target.namespaced,
        shortNames: target.shortNames,
      },
      { kubefedNamespace: options.kubefedNamespace, federatedGroup: options.federatedGroup },
    ).ftc;
  } else {
    throw new KubefedctlError(
      `federatedtypeconfigs.core.kubefed.io "${ftcName}" not found. Consider using '--enable-type' to optionally enable type while federating the resource`,
      { hint: `enable the type first (kubefedctl enable ${ftcName}) or add --enable-type` },
    );
  }
  return { info: typeInfoOf(ftc), plural: ftc.spec.federatedType.pluralName };
}

/** Creates a federated object, retrying while its type is not served yet (a CRD just created). */
async function createFederated(host: DynamicClient, work: Work, obj: KubeObject, retryMs: number): Promise<void> {
  const ns = work.type.namespaced ? obj.metadata.namespace : undefined;
  const client = host.resource({ group: work.type.group, version: work.type.version, resource: work.plural }, ns);
  const deadline = Date.now() + retryMs;
  for (;;) {
    try {
      await client.create(obj);
      return;
    } catch (e) {
      if (isAlreadyExists(e)) {
        throw new KubefedctlError(
          `${work.type.kind} "${qualifiedName(obj)}" already exists: ${work.target.kind ?? 'the object'} "${qualifiedName(work.target)}" is already federated`,
          {
            cause: e,
            hint: `edit the existing ${work.type.kind} instead, or delete it and federate again`,
          },
        );
      }
      if (!isNotFound(e) || Date.now() >= deadline) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** The objects of one type in a namespace: those `--contents` federates, and those it leaves out. */
async function objectsIn(
  host: DynamicClient,
  m: ResourceMapping,
  options: FederateOptions,
): Promise<{ items: KubeObject[]; skipped: SkippedObject[] }> {
  const list = await host.resource({ group: m.group, version: m.version, resource: m.resource }, options.name).listAll();
  const apiVersion = m.group === '' ? m.version : `${m.group}/${m.version}`;
  const items: KubeObject[] = [];
  const skipped: SkippedObject[] = [];
  for (const item of list.items) {
    const skip = contentsSkipOf(item, m, { includeOwned: options.includeOwned === true });
    if (skip === undefined) items.push({ ...item, apiVersion, kind: m.kind });
    else skipped.push(skip);
  }
  return { items, skipped };
}

/** How many objects of each never-federated type the namespace holds, for the report. */
async function neverFederatedIn(host: DynamicClient, all: readonly ResourceMapping[], namespace: string): Promise<SkippedType[]> {
  return Promise.all(
    reportedNeverFederatedTypes(all).map(async (m) => {
      const list = await host.resource({ group: m.group, version: m.version, resource: m.resource }, namespace).listAll();
      return { resource: qualifiedResource(m), count: list.items.length, reason: neverFederatedReason(m) };
    }),
  );
}

/**
 * `kubefedctl federate <type> <name>` (docs/kubefed-compatibility.md §3.6, API mode): looks the type up on
 * the host, finds its FTC (see {@link FederateOptions.enableType} / `dryRun`), reads the target
 * and converts it ({@link federatedObjectFor}). With `contents` (Namespaces only) every object of
 * every namespaced type in the namespace follows, except the types KubeFed skips and the objects
 * each cluster makes for itself ({@link contentsSkipOf}; `includeOwned` keeps owned ones), which
 * are reported on `out` ({@link formatContentsSkips}); all FTCs are resolved and all objects read
 * before the first write. Unless `dryRun`, creates the federated
 * objects in order and prints `Successfully created ...` for each. Resolves to the objects and
 * the types it enabled.
 *
 * @throws KubefedctlError naming the type (FTC missing, `--contents` for a non-namespace), the
 *   target (not found) or the federated object (already exists); UsageError for bad options.
 */
export async function federateResource(host: DynamicClient, options: FederateOptions, out: Output): Promise<FederateOutcome> {
  const enabled: string[] = [];
  const target = await lookupType(host.restMapper(), options.type);
  const isNamespace = target.group === '' && target.resource === 'namespaces';
  if (options.contents && !isNamespace) throw new UsageError(`Flag '--contents' can only be used with type 'namespaces'.`);
  if (options.includeOwned === true && !options.contents)
    throw new UsageError(`Flag '--include-owned' can only be used with '--contents'.`);
  const gvr = { group: target.group, version: target.version, resource: target.resource };
  const ns = target.namespaced ? options.namespace : undefined;
  const obj = await getOrUndefined(host.resource(gvr, ns), options.name);
  if (obj === undefined) {
    throw new KubefedctlError(
      `${target.kind} "${ns === undefined ? options.name : `${ns}/${options.name}`}" not found in the host cluster`,
      {
        hint: target.namespaced ? 'check the name and the namespace (-n)' : 'check the name',
      },
    );
  }
  const apiVersion = target.group === '' ? target.version : `${target.group}/${target.version}`;
  const first = await federatedTypeFor(host, target, options, out, enabled);
  const work: Work[] = [{ target: { ...obj, apiVersion, kind: target.kind }, type: first.info, plural: first.plural }];
  const skipped: FederateOutcome['skipped'] = { objects: [], types: [] };

  if (options.contents) {
    const all = await host.restMapper().all();
    const missing: string[] = [];
    const perType: { m: ResourceMapping; items: KubeObject[] }[] = [];
    for (const m of contentsTypes(all, options.skipApiResources ?? [], options.federatedGroup)) {
      const { items, skipped: left } = await objectsIn(host, m, options);
      skipped.objects.push(...left);
      if (items.length === 0) continue;
      perType.push({ m, items });
      const ftcName = groupQualifiedName({ pluralName: m.resource, group: m.group });
      if (
        !options.enableType &&
        !options.dryRun &&
        (await getOrUndefined(host.resource(GVR.federatedTypeConfigs, options.kubefedNamespace), ftcName)) === undefined
      )
        missing.push(ftcName);
    }
    skipped.types = await neverFederatedIn(host, all, options.name);
    for (const line of formatContentsSkips(skipped)) out.progress(line);
    if (missing.length > 0) {
      throw new KubefedctlError(
        `namespace "${options.name}" contains objects of types that are not enabled for federation: ${missing.join(', ')}. Consider using '--enable-type' to optionally enable type while federating the resource`,
        { hint: `enable them first (kubefedctl enable ${missing.join(' ')}), add --enable-type, or skip them with --skip-api-resources` },
      );
    }
    for (const { m, items } of perType) {
      const t = await federatedTypeFor(host, m, options, out, enabled);
      for (const item of items) work.push({ target: item, type: t.info, plural: t.plural });
    }
  }

  const results: FederatedResult[] = [];
  for (const w of work) {
    const { object, warnings } = federatedObjectFor(w.target, w.type);
    for (const warning of warnings) out.warn(warning);
    const description = `${w.type.kind} "${qualifiedName(object)}" from ${w.target.kind ?? ''}`;
    if (!options.dryRun) {
      await createFederated(host, w, object, options.createRetryMs ?? 10_000);
      out.info(`Successfully created ${description}`);
    }
    results.push({ object, description });
  }
  return { results, enabledTypes: enabled, skipped };
}

/**
 * `kubefedctl federate -f <file>` (offline): converts every resource of the input with the
 * federated type KubeFed assumes ({@link defaultFederatedType}); warnings go to `out`. No API
 * access.
 */
export function federateDocuments(
  docs: readonly KubeObject[],
  options: { federatedGroup?: string | undefined },
  out: Output,
): KubeObject[] {
  return docs.map((doc) => {
    const { object, warnings } = federatedObjectFor(doc, defaultFederatedType(doc, options));
    for (const w of warnings) out.warn(w);
    return object;
  });
}
