/**
 * What the ReplicaSchedulingPreference controller writes into the federated object
 * (docs/kubefed-compatibility.md §4.6 step 8): `spec.placement.clusters` and one `/spec/replicas` override per
 * scheduled cluster. Pure; the user's other overrides are never touched.
 */

/** The override path this controller manages; every other path belongs to the user. */
export const REPLICAS_OVERRIDE_PATH = '/spec/replicas';

/** One entry of `clusterOverrides`. */
export interface ClusterOverride {
  op?: string | undefined;
  path: string;
  value?: unknown;
}

/** One entry of `spec.overrides`. */
export interface OverrideEntry {
  clusterName?: string | undefined;
  clusterOverrides?: ClusterOverride[] | undefined;
}

/** The parts of a federated object's `spec` this controller reads and writes. */
export interface SchedulableSpec {
  placement?: { clusters?: { name: string }[] | null | undefined; [field: string]: unknown } | null | undefined;
  overrides?: OverrideEntry[] | null | undefined;
  [field: string]: unknown;
}

/** Result of {@link schedulingUpdate}. */
export interface SchedulingUpdate {
  /** The new spec (a copy; the input is never mutated). Equal to the input when nothing changed. */
  spec: SchedulableSpec;
  placementChanged: boolean;
  overridesChanged: boolean;
}

const sortedNames = (names: Iterable<string>): string[] => [...new Set(names)].sort();

/** True when the sorted sets of placed cluster names differ from the result's clusters. */
export function placementNeedsUpdate(spec: SchedulableSpec, result: Readonly<Record<string, number>>): boolean {
  const existing = sortedNames((spec.placement?.clusters ?? []).map((c) => c.name));
  const wanted = sortedNames(Object.keys(result));
  return existing.length !== wanted.length || existing.some((n, i) => n !== wanted[i]);
}

const replicaOverrides = (entry: OverrideEntry): ClusterOverride[] =>
  (entry.clusterOverrides ?? []).filter((o) => o.path === REPLICAS_OVERRIDE_PATH);

/**
 * KubeFed's test: up to date unless some result cluster lacks exactly one `/spec/replicas`
 * override with its number, or a cluster outside the result still has one.
 */
export function overridesUpToDate(overrides: readonly OverrideEntry[], result: Readonly<Record<string, number>>): boolean {
  const found = new Map<string, ClusterOverride[]>();
  for (const entry of overrides) {
    const name = entry.clusterName ?? '';
    found.set(name, [...(found.get(name) ?? []), ...replicaOverrides(entry)]);
  }
  for (const [name, n] of Object.entries(result)) {
    const own = found.get(name) ?? [];
    if (own.length !== 1 || own[0]?.value !== n) return false;
  }
  for (const [name, own] of found) if (!Object.hasOwn(result, name) && own.length > 0) return false;
  return true;
}

/**
 * The overrides after scheduling: for a cluster outside `result` its first `/spec/replicas`
 * override is dropped (the entry stays, possibly empty); for a result cluster the value of its
 * existing `/spec/replicas` override is set, or `{path: "/spec/replicas", value: n}` is appended
 * (to its first entry, or to a new entry after the existing ones, in name order). Other paths and
 * entry order are kept. Returns `overrides` itself when already up to date.
 */
export function applyReplicaOverrides(
  overrides: readonly OverrideEntry[],
  result: Readonly<Record<string, number>>,
): readonly OverrideEntry[] {
  if (overridesUpToDate(overrides, result)) return overrides;
  const next: OverrideEntry[] = overrides.map((e) => ({ ...e, clusterOverrides: (e.clusterOverrides ?? []).map((o) => ({ ...o })) }));
  const dropped = new Set<string>();
  for (const entry of next) {
    const name = entry.clusterName ?? '';
    if (Object.hasOwn(result, name) || dropped.has(name)) continue;
    const list = entry.clusterOverrides ?? [];
    const index = list.findIndex((o) => o.path === REPLICAS_OVERRIDE_PATH);
    if (index >= 0) {
      list.splice(index, 1);
      dropped.add(name);
    }
  }
  for (const name of sortedNames(Object.keys(result))) {
    const n = result[name] ?? 0;
    const entry = next.find((e) => e.clusterName === name);
    if (entry === undefined) {
      next.push({ clusterName: name, clusterOverrides: [{ path: REPLICAS_OVERRIDE_PATH, value: n }] });
      continue;
    }
    const list = (entry.clusterOverrides ??= []);
    const existing = list.find((o) => o.path === REPLICAS_OVERRIDE_PATH);
    if (existing === undefined) list.push({ path: REPLICAS_OVERRIDE_PATH, value: n });
    else existing.value = n;
  }
  return next;
}

/**
 * Placement and overrides of a federated object for a scheduling `result` (cluster → replicas):
 * when the placed names differ, `spec.placement.clusters` becomes the result's clusters sorted by
 * name, including clusters given 0 replicas, as KubeFed does (`clusterSelector` is kept); the
 * overrides follow {@link applyReplicaOverrides}.
 */
export function schedulingUpdate(spec: SchedulableSpec, result: Readonly<Record<string, number>>): SchedulingUpdate {
  const placementChanged = placementNeedsUpdate(spec, result);
  const current = spec.overrides ?? [];
  const overrides = applyReplicaOverrides(current, result);
  const overridesChanged = overrides !== current;
  if (!placementChanged && !overridesChanged) return { spec, placementChanged, overridesChanged };
  const next: SchedulableSpec = { ...spec };
  if (placementChanged)
    next.placement = { ...(spec.placement ?? {}), clusters: sortedNames(Object.keys(result)).map((name) => ({ name })) };
  if (overridesChanged) next.overrides = [...overrides];
  return { spec: next, placementChanged, overridesChanged };
}
