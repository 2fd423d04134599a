/**
 * Which member clusters the next reconcile of a key must dispatch jobs to. A key queued because
 * the object changed, by a periodic resync, a label or FederatedNamespace change needs every
 * cluster; a key queued only because some clusters' readiness changed needs jobs for those
 * clusters alone: the other members' copies do not depend on a third cluster's readiness (the
 * reconcile still writes the status, whose entries for the changed clusters do), so an
 * unreachable member costs the healthy ones no job per object (issue #18).
 *
 * A key without an entry (a retry, a requeue after a wait) is reconciled in full.
 */
export class DispatchScopes {
  /** Per queued key: every cluster, or only these. */
  readonly #pending = new Map<string, ReadonlySet<string> | 'all'>();
  /** Per queued key: the clusters whose managed copy changed. */
  readonly #changed = new Map<string, Set<string>>();

  /** The next reconcile of `key` dispatches to every cluster. */
  all(key: string): void {
    this.#pending.set(key, 'all');
  }

  /** The next reconcile of `key` dispatches to `clusters` too (and only to them unless {@link all} was asked). */
  only(key: string, clusters: ReadonlySet<string>): void {
    const current = this.#pending.get(key);
    if (current === 'all') return;
    this.#pending.set(key, current === undefined ? clusters : new Set([...current, ...clusters]));
  }

  /**
   * The managed copy of `key` in `cluster` changed (drift, or its status): the next reconcile of
   * `key` dispatches to `cluster` too, and knows the copy changed ({@link takeMemberChanges}).
   */
  memberChanged(key: string, cluster: string): void {
    this.only(key, new Set([cluster]));
    const changed = this.#changed.get(key);
    if (changed === undefined) this.#changed.set(key, new Set([cluster]));
    else changed.add(cluster);
  }

  /** Takes the clusters whose managed copy of `key` changed since its last reconcile. */
  takeMemberChanges(key: string): ReadonlySet<string> {
    const changed = this.#changed.get(key);
    this.#changed.delete(key);
    return changed ?? new Set();
  }

  /** Takes the scope of the reconcile starting now: the clusters it dispatches to, or `undefined` for every cluster. */
  take(key: string): ReadonlySet<string> | undefined {
    const scope = this.#pending.get(key);
    this.#pending.delete(key);
    return scope === 'all' ? undefined : scope;
  }
}

/** The clusters that became Ready, stopped being Ready, or are Ready with another client since `before`. */
export function readinessChanges<C>(before: ReadonlyMap<string, C>, after: ReadonlyMap<string, C>): Set<string> {
  const changed = new Set<string>();
  for (const [name, client] of after) if (before.get(name) !== client) changed.add(name);
  for (const name of before.keys()) if (!after.has(name)) changed.add(name);
  return changed;
}
