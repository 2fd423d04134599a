import { styleText } from 'node:util';
import {
  alignColumns,
  federatedTypeConfigSchema,
  labelSelectorToString,
  matchesLabelSelector,
  type FederatedTypeConfig,
  type LabelSelector,
} from '@kubefed/api';
import { type DynamicClient, type GroupVersionResource, isNotFound, type KubeObject } from '@kubefed/client';
import { KubefedctlError } from '../errors.js';
import { GVR } from '../resources.js';

/** One federated type as `status` lists it (from its FederatedTypeConfig). */
export interface StatusType {
  /** The FTC name, e.g. `deployments.apps`. */
  readonly name: string;
  /** e.g. `FederatedDeployment`. */
  readonly kind: string;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  /** FTC `propagation`. */
  readonly propagation: string;
}

/** The state of one member cluster for one federated object. */
interface ClusterState {
  readonly name: string;
  /** `OK`, a KubeFed cluster status (`CreationFailed`, `ClusterNotReady`, ...), `Pending` (placed, not reported yet) or `NotJoined` (named in the placement, no such KubeFedCluster: nothing goes there). */
  readonly status: string;
  /** From `remoteStatus` (status collection): e.g. `2/3 ready` for a workload. */
  readonly remote?: string | undefined;
}

/** The status of one federated object, as `-o json` prints it. */
export interface ObjectStatus {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
  readonly generation: number;
  readonly observedGeneration: number;
  /** `True`, `False` or `Unknown` (no condition yet). */
  readonly propagation: string;
  /** The Propagation condition's reason (`CheckClusters`, `NamespaceNotFederated`, ...), if any. */
  readonly reason?: string | undefined;
  /** How the object is placed: `clusters: a, b` or `selector: region in (eu)`. */
  readonly placement: string;
  readonly clusters: readonly ClusterState[];
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}
interface FedStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  clusters?: { name: string; status?: string; remoteStatus?: Record<string, unknown> }[];
}
interface Placement {
  clusters?: { name: string }[] | null;
  clusterSelector?: LabelSelector | null;
}

/** The FederatedTypeConfigs of the kubefed namespace as status types (invalid ones are skipped). */
async function statusTypes(host: DynamicClient, kubefedNamespace: string): Promise<StatusType[]> {
  const items = (await host.resource(GVR.federatedTypeConfigs, kubefedNamespace).listAll()).items;
  return items
    .flatMap((i) => {
      const p = federatedTypeConfigSchema.safeParse(i);
      return p.success ? [statusTypeOf(p.data)] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

function statusTypeOf(ftc: FederatedTypeConfig): StatusType {
  const f = ftc.spec.federatedType;
  return {
    name: ftc.metadata.name ?? '',
    kind: f.kind,
    gvr: { group: f.group ?? '', version: f.version, resource: f.pluralName },
    namespaced: f.scope === 'Namespaced',
    propagation: ftc.spec.propagation ?? 'Enabled',
  };
}

/**
 * The types a `status [type]` argument names: the FTC name (`deployments.apps`), the federated
 * kind or plural (`FederatedDeployment`, `federateddeployments`), or the target kind or plural
 * (`Deployment`, `deployments`), case-insensitive. Without an argument, every type.
 *
 * @throws KubefedctlError naming the argument and the known types when nothing matches.
 */
export function selectTypes(types: readonly StatusType[], arg: string | undefined): StatusType[] {
  if (arg === undefined) return [...types];
  const key = arg.toLowerCase();
  const found = types.filter((t) => {
    const target = t.name.split('.')[0] ?? '';
    return [t.name, t.kind, t.gvr.resource, `${t.gvr.resource}.${t.gvr.group}`, target, t.kind.replace(/^Federated/, '')].some(
      (n) => n.toLowerCase() === key,
    );
  });
  if (found.length === 0) {
    throw new KubefedctlError(`no federated type matches "${arg}"`, {
      hint:
        types.length === 0
          ? 'no type is enabled: run "kubefedctl enable <type>" (or --default-types) first'
          : `enabled types: ${types.map((t) => t.name).join(', ')}`,
    });
  }
  return found;
}

function placementOf(spec: { placement?: Placement } | undefined, clusters: readonly KubeObject[]): { text: string; names: string[] } {
  const p = spec?.placement;
  if (p?.clusters !== undefined && p.clusters !== null) {
    const names = p.clusters.map((c) => c.name);
    return { text: `clusters: ${names.length === 0 ? '(none)' : names.join(', ')}`, names };
  }
  if (p?.clusterSelector === undefined || p.clusterSelector === null) return { text: 'none', names: [] };
  let text: string;
  let names: string[];
  try {
    const s = labelSelectorToString(p.clusterSelector);
    text = `selector: ${s === '' ? '(every cluster)' : s}`;
    names = clusters.filter((c) => matchesLabelSelector(p.clusterSelector, c.metadata.labels)).map((c) => c.metadata.name ?? '');
  } catch {
    text = 'selector: (invalid)';
    names = [];
  }
  return { text, names };
}

/** `ready/replicas ready` for workloads, `complete`/`active N` for jobs; undefined when nothing readable. */
function remoteSummary(remote: Record<string, unknown> | undefined): string | undefined {
  if (remote === undefined) return undefined;
  const n = (k: string): number | undefined => (typeof remote[k] === 'number' ? remote[k] : undefined);
  if (n('replicas') !== undefined || n('readyReplicas') !== undefined) return `${n('readyReplicas') ?? 0}/${n('replicas') ?? 0} ready`;
  if (n('succeeded') !== undefined || n('active') !== undefined || n('failed') !== undefined) {
    return [
      n('active') === undefined ? '' : `active ${n('active')}`,
      n('succeeded') === undefined ? '' : `succeeded ${n('succeeded')}`,
      n('failed') === undefined ? '' : `failed ${n('failed')}`,
    ]
      .filter((s) => s !== '')
      .join(', ');
  }
  return Object.keys(remote).length === 0 ? undefined : 'reported';
}

/**
 * The status of a federated object: its Propagation condition and, per cluster, the reported
 * status, plus clusters it is placed in that have not reported yet (`Pending`, or `NotJoined` for
 * a name without a KubeFedCluster). `clusters` are
 * the registered KubeFedClusters (for selector placement). Pure.
 */
export function objectStatus(obj: KubeObject, kind: string, clusters: readonly KubeObject[]): ObjectStatus {
  const status = (obj.status ?? {}) as FedStatus;
  const condition = status.conditions?.find((c) => c.type === 'Propagation');
  const placement = placementOf(obj.spec as { placement?: Placement } | undefined, clusters);
  const reported = new Map((status.clusters ?? []).map((c) => [c.name, c]));
  const names = [...new Set([...placement.names, ...reported.keys()])].sort();
  const registered = new Set(clusters.map((c) => c.metadata.name ?? ''));
  return {
    kind,
    ...(obj.metadata.namespace === undefined || obj.metadata.namespace === '' ? {} : { namespace: obj.metadata.namespace }),
    name: obj.metadata.name ?? '',
    generation: obj.metadata.generation ?? 0,
    observedGeneration: status.observedGeneration ?? 0,
    propagation: condition?.status ?? 'Unknown',
    ...(condition?.reason === undefined || condition.reason === '' ? {} : { reason: condition.reason }),
    placement: placement.text,
    clusters: names.map((name) => {
      const r = reported.get(name);
      const remote = remoteSummary(r?.remoteStatus);
      const unreported = registered.has(name) ? 'Pending' : 'NotJoined';
      return {
        name,
        status: r === undefined ? unreported : (r.status ?? '') === '' ? 'OK' : (r.status ?? ''),
        ...(remote === undefined ? {} : { remote }),
      };
    }),
  };
}

/** `True`, `False (CheckClusters)`, `Pending (generation 3, status of 2)`. */
export function propagationText(s: ObjectStatus): string {
  if (s.observedGeneration < s.generation) return `Pending (generation ${s.generation} not yet propagated)`;
  return s.reason === undefined ? s.propagation : `${s.propagation} (${s.reason})`;
}

type Paint = (style: 'green' | 'red' | 'yellow' | 'dim', text: string) => string;
const plain: Paint = (_style, text) => text;
/** Colours for a terminal (node's styleText). */
export const terminalPaint: Paint = (style, text) => styleText(style, text);

const clusterStyle = (status: string): 'green' | 'red' | 'yellow' =>
  status === 'OK' ? 'green' : status === 'Pending' || status.endsWith('TimedOut') || status === 'WaitingForRemoval' ? 'yellow' : 'red';

/**
 * The table `status` prints: one row per object (default) with a compact CLUSTERS column
 * (`member1 OK, member2 CreationFailed`), or with `wide` one row per object and cluster with
 * the remote status and the placement.
 */
export function formatStatus(
  objects: readonly ObjectStatus[],
  options: { wide?: boolean; allNamespaces?: boolean; paint?: Paint } = {},
): string {
  const paint = options.paint ?? plain;
  if (objects.length === 0) return 'No federated objects found.\n';
  const ns = options.allNamespaces === true;
  const propStyle = (s: ObjectStatus): 'green' | 'red' | 'yellow' =>
    s.observedGeneration < s.generation ? 'yellow' : s.propagation === 'True' ? 'green' : s.propagation === 'False' ? 'red' : 'yellow';
  const head =
    options.wide === true
      ? ['KIND', 'NAME', 'PROPAGATION', 'CLUSTER', 'STATUS', 'REMOTE', 'PLACEMENT']
      : ['KIND', 'NAME', 'PROPAGATION', 'CLUSTERS'];
  const rows: string[][] = [ns ? ['NAMESPACE', ...head] : head];
  for (const s of objects) {
    const first = [s.kind, s.name, paint(propStyle(s), propagationText(s))];
    const prefix = ns ? [s.namespace ?? '-'] : [];
    if (options.wide === true) {
      if (s.clusters.length === 0) rows.push([...prefix, ...first, '-', '-', '-', s.placement]);
      s.clusters.forEach((c, i) => {
        const cells = i === 0 ? [...prefix, ...first] : [...prefix.map(() => ''), '', '', ''];
        rows.push([...cells, c.name, paint(clusterStyle(c.status), c.status), c.remote ?? '-', i === 0 ? s.placement : '']);
      });
    } else {
      const clusters =
        s.clusters.length === 0
          ? paint('dim', `none (${s.placement})`)
          : s.clusters.map((c) => `${c.name} ${paint(clusterStyle(c.status), c.status)}`).join(', ');
      rows.push([...prefix, ...first, clusters]);
    }
  }
  return alignColumns(rows);
}

/** Options of {@link gatherStatus}. */
export interface GatherStatusOptions {
  readonly kubefedNamespace: string;
  /** `status [type]`. */
  readonly type?: string | undefined;
  /** `status type name`. */
  readonly name?: string | undefined;
  /** Namespace to list; undefined = every namespace (`-A`). */
  readonly namespace?: string | undefined;
}

/**
 * Reads the federated objects of the selected types (in `namespace`, or everywhere) and their
 * status from the host.
 *
 * @throws KubefedctlError for an unknown type, a name without a type, or a named object that does not exist.
 */
export async function gatherStatus(host: DynamicClient, options: GatherStatusOptions): Promise<ObjectStatus[]> {
  if (options.name !== undefined && options.type === undefined)
    throw new KubefedctlError('status: a name needs a type, e.g. kubefedctl status deployments web');
  const types = selectTypes(await statusTypes(host, options.kubefedNamespace), options.type);
  const clusters = (await host.resource(GVR.kubeFedClusters, options.kubefedNamespace).listAll()).items;
  const out: ObjectStatus[] = [];
  for (const t of types) {
    const resource = host.resource(t.gvr, t.namespaced ? options.namespace : undefined);
    if (options.name !== undefined) {
      try {
        out.push(objectStatus(await resource.get(options.name), t.kind, clusters));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        const where = t.namespaced ? ` in namespace "${options.namespace ?? ''}"` : '';
        throw new KubefedctlError(`${t.kind} "${options.name}" not found${where}`, {
          hint: `list them with: kubefedctl status ${t.name}${t.namespaced ? ' -A' : ''}`,
        });
      }
      continue;
    }
    let items: KubeObject[];
    try {
      items = (await resource.listAll()).items;
    } catch (err) {
      // A type whose CRD is gone (disable --delete-crd) has nothing to show.
      if (isNotFound(err)) continue;
      throw err;
    }
    for (const obj of items) out.push(objectStatus(obj, t.kind, clusters));
  }
  return out.sort(
    (a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name),
  );
}
