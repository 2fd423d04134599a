// Shared helpers of the end-to-end suite, whose files start their local federation with
// `useLocalFederation` (@kubefed/testing/vitest; the kube-sim CLI or, with KUBEFED_TEST_SUBSTRATE=real
// as the vitest project `real` sets it, real control planes) and poll with `POLL`: kubectl against
// its kubeconfig, and reads of federated objects and their status as a user sees them.
import { execFile } from 'node:child_process';
import { RESOURCES } from '@kubefed/api';
import { getOrUndefined, type GroupVersionResource, type KubeObject, type ResourceClient } from '@kubefed/client';
import type { CommandResult, LocalFederation } from '@kubefed/testing';

/** A federated type's resource in `types.kubefed.io/v1beta1`, e.g. `federated('federatedconfigmaps')`. */
export const federated = (resource: string): GroupVersionResource => ({ group: 'types.kubefed.io', version: 'v1beta1', resource });
export const FEDERATED_NAMESPACES = federated('federatednamespaces');
export const FEDERATED_CONFIG_MAPS = federated('federatedconfigmaps');
export const FEDERATED_DEPLOYMENTS = federated('federateddeployments');

/** Runs `kubectl --kubeconfig <fed's> --context <context> ...args` (never rejects: see `code`). */
export function kubectl(fed: LocalFederation, args: readonly string[], context = 'host'): Promise<CommandResult> {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', fed.kubeconfigPath, '--context', context, ...args],
      { env, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
      },
    );
  });
}

/** The stdout of a command that must succeed; otherwise an error with its stderr. */
export function succeeded(result: CommandResult, what: string): string {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

/**
 * Creates namespace `ns` in the host and its FederatedNamespace placed in `clusters`, so that
 * namespaced federated objects in it can propagate (cluster-scoped control plane).
 */
export async function createFederatedNamespace(fed: LocalFederation, ns: string, clusters: readonly string[]): Promise<void> {
  const host = fed.client('host');
  await host.resource(RESOURCES.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await host.resource(FEDERATED_NAMESPACES, ns).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedNamespace',
    metadata: { name: ns, namespace: ns },
    spec: { placement: { clusters: clusters.map((name) => ({ name })) } },
  });
}

interface FederatedStatus {
  observedGeneration?: number;
  conditions?: { type?: string; status?: string; reason?: string }[];
  clusters?: { name: string; status?: string }[];
}

/** A federated object's status as the checks compare it. */
export interface PropagationSummary {
  /** `observedGeneration == metadata.generation`. */
  readonly current: boolean;
  /** The Propagation condition's status (`missing` when there is none). */
  readonly propagation: string;
  /** Its reason (`''` when none). */
  readonly reason: string;
  /** `status.clusters` as `name: status`, `OK` for an empty status, sorted by name. */
  readonly clusters: Readonly<Record<string, string>>;
}

/** Summarises the status of a federated object (undefined when it does not exist). */
export function summarize(obj: KubeObject | undefined): PropagationSummary | undefined {
  if (obj === undefined) return undefined;
  const status = (obj.status ?? {}) as FederatedStatus;
  const condition = status.conditions?.find((c) => c.type === 'Propagation');
  const clusters = Object.fromEntries(
    [...(status.clusters ?? [])]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => [c.name, c.status === undefined || c.status === '' ? 'OK' : c.status]),
  );
  return {
    current: status.observedGeneration === obj.metadata.generation,
    propagation: condition?.status ?? 'missing',
    reason: condition?.reason ?? '',
    clusters,
  };
}

/** The summary of a propagated object: current generation, Propagation True, `clusters` all OK. */
export function propagatedTo(clusters: readonly string[]): PropagationSummary {
  return { current: true, propagation: 'True', reason: '', clusters: Object.fromEntries([...clusters].sort().map((c) => [c, 'OK'])) };
}

/**
 * The `status.clusters` a ReplicaSchedulingPreference writes when it plans `planned` (replicas by
 * cluster) in `fed`: KubeFed's planner places every other Ready cluster, one with neither a
 * preference of its own nor `*`, with 0 replicas (planner.go), so each joined cluster has an
 * entry (the host too when it is a member). Sorted by name, as is the placement it writes.
 */
export function scheduledClusters(fed: LocalFederation, planned: Readonly<Record<string, number>>): Record<string, { replicas: number }> {
  return Object.fromEntries([...fed.joined].sort().map((c) => [c, { replicas: planned[c] ?? 0 }]));
}

/** The summary of a federated object read from the host. */
export async function propagationOf(resource: ResourceClient, name: string): Promise<PropagationSummary | undefined> {
  return summarize(await getOrUndefined(resource, name));
}

/** The value at a JSON pointer (`/spec/replicas`, `/rules/0/verbs`), undefined when absent. */
export function at(obj: unknown, pointer: string): unknown {
  let cur: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A deep copy of `obj` with the value at a JSON pointer set (intermediate objects created). */
export function withValueAt<T>(obj: T, pointer: string, value: unknown): T {
  const copy = structuredClone(obj);
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  let cur = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    if (typeof cur[key] !== 'object' || cur[key] === null) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1] ?? ''] = value;
  return copy;
}
