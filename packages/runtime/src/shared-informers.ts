import { systemClock, type Clock, type GroupVersionResource, type KubeObject, type ResourceClient } from '@kubefed/client';
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

/** What a shared informer watches: one resource, optionally one namespace and a label selector, and what its cache keeps. */
export interface InformerSpec {
  readonly resource: GroupVersionResource;
  /** Default (and `''`) every namespace. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  /** Applied to every object before it is cached; default none (whole objects). */
  readonly transform?: NamedTransform | undefined;
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
}

interface Entry {
  readonly informer: Informer;
  readonly abort: AbortController;
  done: Promise<void> | undefined;
  refs: number;
}

/**
 * The informers of one cluster, shared by every consumer in the process: one informer per
 * (resource, namespace, label selector), started for its first holder and stopped when the last
 * one releases it (controller-runtime's informer cache, reference-counted). Used by the
 * {@link Fleet} for each member and by the {@link Manager} for the host.
 *
 * A runnable: informers acquired before {@link start} begin when it starts; stopping it stops
 * every informer, after which {@link acquire} throws {@link InformersStoppedError}. As a cache
 * runnable it reports synced once every informer held at that moment has synced.
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
  acquire(spec: InformerSpec): SharedInformer {
    if (this.#stopped)
      throw new InformersStoppedError(`cannot watch ${informerId(spec)} in ${this.#o.cluster}: its informers have stopped`);
    const id = informerId(spec);
    const entry = this.#entries.get(id) ?? this.#add(id, spec);
    entry.refs += 1;
    let released = false;
    return {
      informer: entry.informer,
      release: () => {
        if (released) return;
        released = true;
        this.#release(id, entry);
      },
    };
  }

  hasSynced(): boolean {
    return [...this.#entries.values()].every((e) => e.informer.hasSynced());
  }

  /** Resolves true once every informer held now has synced, false if `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    for (const e of [...this.#entries.values()]) if (!(await e.informer.waitForSync(signal))) return false;
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
    });
    const entry: Entry = { informer, abort: new AbortController(), done: undefined, refs: 0 };
    this.#entries.set(id, entry);
    if (this.#signal !== undefined) this.#run(entry);
    return entry;
  }

  #run(entry: Entry): void {
    const signal = AbortSignal.any([this.#signal ?? new AbortController().signal, entry.abort.signal]);
    entry.done = entry.informer.start(signal).catch((err: unknown) => this.#logger.error({ err }, 'shared informer failed'));
  }

  #release(id: string, entry: Entry): void {
    entry.refs -= 1;
    if (entry.refs > 0 || this.#entries.get(id) !== entry) return;
    this.#entries.delete(id);
    entry.abort.abort();
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

/**
 * One owner's holds on shared informers, for as long as it runs: a cache runnable (the manager
 * it is added to waits for every informer it holds to sync before starting controllers) that
 * releases them all when stopped. For consumers whose lifetime is a manager's, e.g. a controller
 * registered in a manager of its own that reads the process's host informers.
 */
export class InformerHolds implements CacheRunnable {
  readonly name: string;
  readonly needLeaderElection = false;
  readonly #informers: SharedInformers;
  readonly #holds: SharedInformer[] = [];
  readonly #awaited: Informer[] = [];

  constructor(informers: SharedInformers, name: string) {
    this.#informers = informers;
    this.name = name;
  }

  /**
   * The shared informer of `spec`, held until this runnable stops. With `awaitSync: false` it
   * does not count towards {@link hasSynced} (for a resource that may not be served, read only
   * by some reconciles, which check its sync themselves); default true.
   *
   * @throws InformersStoppedError as {@link SharedInformers.acquire}.
   */
  acquire(spec: InformerSpec, options: { awaitSync?: boolean } = {}): Informer {
    const hold = this.#informers.acquire(spec);
    this.#holds.push(hold);
    if (options.awaitSync !== false) this.#awaited.push(hold.informer);
    return hold.informer;
  }

  hasSynced(): boolean {
    return this.#awaited.every((i) => i.hasSynced());
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    for (const i of [...this.#awaited]) if (!(await i.waitForSync(signal))) return false;
    return true;
  }

  /** Waits until `signal` aborts, then releases every hold. */
  async start(signal: AbortSignal): Promise<void> {
    await untilAborted(signal);
    for (const h of this.#holds.splice(0)) h.release();
  }
}
