import { jsonEqual } from '@kubefed/client';
import { silentLogger, type Logger } from './logger.js';
import { untilAborted } from './runnable.js';

/** What the factory returns for an engaged cluster: anything the caller needs (informers, clients). */
export interface EngagedCluster<T> {
  readonly name: string;
  readonly value: T;
  /** Aborts when the cluster is disengaged (or the registry stops). */
  readonly signal: AbortSignal;
}

/** Builds and starts what a member cluster needs (e.g. its informers), tied to `signal`. */
export type ClusterFactory<T, C> = (name: string, config: C, signal: AbortSignal) => Promise<T>;

/** Engage / disengage notifications. */
export interface ClusterRegistryEvents<T> {
  onEngaged?(cluster: EngagedCluster<T>): void;
  onDisengaged?(name: string): void;
}

/** Options of {@link ClusterRegistry}. */
export interface ClusterRegistryOptions<T, C> {
  factory: ClusterFactory<T, C>;
  /** Whether two configs are the same (no restart on re-engage); default JSON equality. */
  sameConfig?: (a: C, b: C) => boolean;
  /** Called after the signal of a disengaged cluster aborted (e.g. to await informer shutdown). */
  cleanup?: (name: string, value: T) => Promise<void> | void;
  logger?: Logger;
}

interface Entry<T, C> {
  config: C;
  controller: AbortController;
  ready: Promise<T | undefined>;
  value?: T;
}

/**
 * The member clusters a controller works with right now (KubeFed's federated informer):
 * `engage(name, config)` starts a cluster's informers through the factory under an
 * AbortController of its own; `disengage(name)` stops them when the cluster leaves or becomes
 * unready. Re-engaging with a changed config restarts it. A runnable: stopping it disengages all.
 */
export class ClusterRegistry<T, C = unknown> {
  readonly name = 'cluster-registry';
  /** Runs on every replica: member caches should be warm before leadership. */
  readonly needLeaderElection = false;
  readonly #o: ClusterRegistryOptions<T, C>;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry<T, C>>();
  readonly #listeners = new Set<ClusterRegistryEvents<T>>();
  #stopped = false;

  constructor(options: ClusterRegistryOptions<T, C>) {
    this.#o = options;
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'cluster-registry' });
  }

  /** Subscribes to engage/disengage events; returns the unsubscribe function. */
  subscribe(listener: ClusterRegistryEvents<T>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Engages `name` (no-op when engaged with the same config; restarts when the config changed).
   * Resolves with the engaged cluster, or undefined when the factory failed (logged; the
   * cluster stays disengaged so a later `engage` retries).
   */
  async engage(name: string, config: C): Promise<EngagedCluster<T> | undefined> {
    if (this.#stopped) return undefined;
    const existing = this.#entries.get(name);
    if (existing !== undefined) {
      const same = this.#o.sameConfig ?? jsonEqual;
      if (same(existing.config, config)) {
        const value = await existing.ready;
        return value === undefined ? undefined : { name, value, signal: existing.controller.signal };
      }
      await this.disengage(name);
    }
    const controller = new AbortController();
    const entry: Entry<T, C> = { config, controller, ready: Promise.resolve(undefined) };
    entry.ready = this.#o.factory(name, config, controller.signal).then(
      (value) => {
        entry.value = value;
        return value;
      },
      (err: unknown) => {
        this.#logger.error({ err, cluster: name }, 'engaging cluster failed');
        controller.abort();
        if (this.#entries.get(name) === entry) this.#entries.delete(name);
        return undefined;
      },
    );
    this.#entries.set(name, entry);
    const value = await entry.ready;
    if (value === undefined || controller.signal.aborted) return undefined;
    const engaged = { name, value, signal: controller.signal };
    this.#logger.info({ cluster: name }, 'cluster engaged');
    for (const l of this.#listeners) l.onEngaged?.(engaged);
    return engaged;
  }

  /** Stops the cluster's informers (aborts its signal); a no-op when not engaged. */
  async disengage(name: string): Promise<void> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    this.#entries.delete(name);
    entry.controller.abort();
    const value = await entry.ready;
    if (value !== undefined) await this.#o.cleanup?.(name, value);
    this.#logger.info({ cluster: name }, 'cluster disengaged');
    for (const l of this.#listeners) l.onDisengaged?.(name);
  }

  /**
   * Makes the engaged set equal `desired` (e.g. the Ready KubeFedClusters with their configs):
   * engages new or changed clusters, disengages the rest. Resolves when all changes are done.
   */
  async sync(desired: ReadonlyMap<string, C>): Promise<void> {
    const leaving = [...this.#entries.keys()].filter((name) => !desired.has(name));
    await Promise.all([...leaving.map((name) => this.disengage(name)), ...[...desired].map(([name, config]) => this.engage(name, config))]);
  }

  /** The engaged cluster `name` (undefined while its factory is still running). */
  get(name: string): EngagedCluster<T> | undefined {
    const entry = this.#entries.get(name);
    if (entry?.value === undefined) return undefined;
    return { name, value: entry.value, signal: entry.controller.signal };
  }

  /** Names of engaged clusters, sorted. */
  list(): string[] {
    return [...this.#entries.entries()]
      .filter(([, e]) => e.value !== undefined)
      .map(([n]) => n)
      .sort();
  }

  /** Runs until `signal` aborts, then disengages every cluster. */
  async start(signal: AbortSignal): Promise<void> {
    await untilAborted(signal);
    this.#stopped = true;
    await Promise.all([...this.#entries.keys()].map((n) => this.disengage(n)));
  }
}
