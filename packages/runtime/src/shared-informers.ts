import { systemClock, type Clock, type GroupVersionResource, type KubeObject, type ResourceClient } from '@kubefed/client';
import type { BudgetAccount, CacheBudget } from './cache-budget.js';
import { InformersStoppedError } from './errors.js';
import { Informer } from './informer.js';
import { listerWatcherFor } from './list-watcher.js';
import { silentLogger, type Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';
import { untilAborted, type CacheRunnable } from './runnable.js';

/** A transform of a shared informer's objects (`InformerOptions.transform`), named so that holders can share the informer. */
export interface NamedTransform {
  /** Names what the transform keeps: informers of the same spec and transform name are one, so equal names must mean equal transforms. */
  readonly name: string;
  readonly transform: (obj: KubeObject) => KubeObject;
}

/**
 * Keeps objects without `metadata.managedFields`: an entry per writer that no controller reads, and
 * that a server keeps as it has them when an update or a status update is sent without them.
 */
export const withoutManagedFields: NamedTransform = {
  name: 'without-managed-fields',
  transform: (obj) => {
    const { managedFields: _managedFields, ...metadata } = obj.metadata;
    return { ...obj, metadata };
  },
};

/** What a shared informer watches: one resource, optionally one namespace and a label selector, and what its cache keeps. */
export interface InformerSpec {
  readonly resource: GroupVersionResource;
  /** Default (and `''`) every namespace. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  /** Applied to every object before it is cached; default none (whole objects). */
  readonly transform?: NamedTransform | undefined;
}

/** Options of {@link SharedInformers.acquire}. */
export interface AcquireOptions {
  /**
   * Whether this holder wants the informer waited for by {@link SharedInformers.waitForSync} and
   * counted by {@link SharedInformers.hasSynced} (and so by a manager's cache sync); false for a
   * resource that may not be served, whose readers check its sync themselves. An informer is
   * awaited while at least one of its holders wants it awaited. Default true.
   */
  readonly awaitSync?: boolean | undefined;
}

/** A consumer's hold on a shared informer; `release()` once done (idempotent). */
export interface SharedInformer {
  readonly informer: Informer;
  release(): void;
}

/** Options of {@link SharedInformers}. */
export interface SharedInformersOptions {
  /** Names the cluster in informer names (`<resource>/<version>@<cluster>`) and logs, e.g. `host` or a member's name. */
  readonly cluster: string;
  /** Where the informers list and watch (a `DynamicClient` fits); owned by the caller. */
  readonly client: { resource(gvr: GroupVersionResource, namespace?: string): Pick<ResourceClient, 'list' | 'watch'> };
  /** Default silent. */
  readonly logger?: Logger | undefined;
  /** Where the informers report (`kubefed_informer_*`); default none. */
  readonly metrics?: RuntimeMetrics | undefined;
  /** Default the system clock. */
  readonly clock?: Clock | undefined;
  /** What the cluster's informers may hold together (the Fleet gives each member one); default unlimited. */
  readonly budget?: CacheBudget | undefined;
}

interface Entry {
  readonly informer: Informer;
  readonly budget: BudgetAccount | undefined;
  readonly abort: AbortController;
  done: Promise<void> | undefined;
  refs: number;
  /** The holders that want the informer awaited ({@link AcquireOptions.awaitSync}). */
  awaitingRefs: number;
}

/**
 * The informers of one cluster, shared by every consumer in the process: one informer per
 * (resource, namespace, label selector), started for its first holder and stopped when the last
 * one releases it (controller-runtime's informer cache, reference-counted). Used by the
 * {@link Fleet} for each member and by the {@link Manager} for the host.
 *
 * A runnable: informers acquired before {@link start} begin when it starts; stopping it stops
 * every informer, after which {@link acquire} throws {@link InformersStoppedError}. As a cache
 * runnable it reports synced once every awaited informer ({@link AcquireOptions.awaitSync}) held
 * at that moment has synced.
 */
export class SharedInformers implements CacheRunnable {
  readonly name: string;
  /** Informers run on every replica, leader or not (their caches warm the standby). */
  readonly needLeaderElection = false;
  readonly #o: SharedInformersOptions;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  #signal: AbortSignal | undefined;
  #stopped = false;

  constructor(options: SharedInformersOptions) {
    this.#o = options;
    this.name = `informers@${options.cluster}`;
    this.#logger = (options.logger ?? silentLogger()).child({ cluster: options.cluster });
  }

  /** How many informers run (or wait for {@link start}). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * A hold on the informer of `spec`, started on the first request and shared by every later
   * one. Handlers a holder adds are its own to remove before releasing.
   *
   * @throws InformersStoppedError once stopped.
   */
  acquire(spec: InformerSpec, options: AcquireOptions = {}): SharedInformer {
    if (this.#stopped)
      throw new InformersStoppedError(`cannot watch ${informerId(spec)} in ${this.#o.cluster}: its informers have stopped`);
    const id = informerId(spec);
    const entry = this.#entries.get(id) ?? this.#add(id, spec);
    const awaiting = options.awaitSync !== false;
    entry.refs += 1;
    if (awaiting) entry.awaitingRefs += 1;
    let released = false;
    return {
      informer: entry.informer,
      release: () => {
        if (released) return;
        released = true;
        this.#release(id, entry, awaiting);
      },
    };
  }

  /** Whether every awaited informer has synced. */
  hasSynced(): boolean {
    return this.#awaited().every((i) => i.hasSynced());
  }

  /** The awaited informers not synced yet, each with its last list error (see {@link CacheRunnable.unsynced}). */
  unsynced(): string[] {
    return this.#awaited().flatMap((i) => i.unsynced());
  }

  /** Resolves true once every awaited informer held now has synced, false if `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    for (const i of this.#awaited()) if (!(await i.waitForSync(signal))) return false;
    return true;
  }

  /** Runs the informers until `signal` aborts, then stops every one of them. */
  async start(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    for (const entry of this.#entries.values()) this.#run(entry);
    await untilAborted(signal);
    this.#stopped = true;
    const running = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(running.map((e) => e.done ?? Promise.resolve()));
  }

  #add(id: string, spec: InformerSpec): Entry {
    const o = this.#o;
    const name = `${id}@${o.cluster}`;
    const namespace = spec.namespace === '' ? undefined : spec.namespace;
    const budget = o.budget?.account(name);
    const informer = new Informer({
      name,
      listerWatcher: listerWatcherFor(
        o.client.resource(spec.resource, namespace),
        spec.labelSelector === undefined ? {} : { labelSelector: spec.labelSelector },
      ),
      logger: this.#logger,
      clock: o.clock ?? systemClock,
      ...(o.metrics === undefined ? {} : { metrics: o.metrics.informer(name) }),
      ...(spec.transform === undefined ? {} : { transform: spec.transform.transform }),
      ...(budget === undefined ? {} : { budget }),
    });
    const entry: Entry = { informer, budget, abort: new AbortController(), done: undefined, refs: 0, awaitingRefs: 0 };
    this.#entries.set(id, entry);
    if (this.#signal !== undefined) this.#run(entry);
    return entry;
  }

  #run(entry: Entry): void {
    const signal = AbortSignal.any([this.#signal ?? new AbortController().signal, entry.abort.signal]);
    entry.done = entry.informer.start(signal).catch((err: unknown) => this.#logger.error({ err }, 'shared informer failed'));
  }

  /** The informers held now that at least one holder wants awaited. */
  #awaited(): Informer[] {
    return [...this.#entries.values()].filter((e) => e.awaitingRefs > 0).map((e) => e.informer);
  }

  #release(id: string, entry: Entry, awaiting: boolean): void {
    entry.refs -= 1;
    if (awaiting) entry.awaitingRefs -= 1;
    if (entry.refs > 0 || this.#entries.get(id) !== entry) return;
    this.#entries.delete(id);
    entry.abort.abort();
    entry.budget?.release();
  }
}

/** The identity of a shared informer within one cluster: resource, namespace, selector and transform. */
function informerId(spec: InformerSpec): string {
  const { group, version, resource } = spec.resource;
  const gr = group === '' ? resource : `${resource}.${group}`;
  const ns = spec.namespace === undefined || spec.namespace === '' ? '' : `/${spec.namespace}`;
  const transform = spec.transform === undefined ? '' : `#${spec.transform.name}`;
  return `${gr}/${version}${ns}${spec.labelSelector === undefined ? '' : `?${spec.labelSelector}`}${transform}`;
}
