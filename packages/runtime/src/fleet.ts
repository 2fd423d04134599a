import { jsonEqual, systemClock, type Clock, type DynamicClient } from '@kubefed/client';
import { CacheBudget, type CacheBudgetExceededError, type CacheBudgetLimits } from './cache-budget.js';
import { FleetFullError, FleetStoppedError } from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import { untilAborted, type Runnable } from './runnable.js';
import { SharedInformers, type InformerSpec, type SharedInformer } from './shared-informers.js';

/** One engaged member cluster as the {@link Fleet} knows it. */
export interface FleetMember<C> {
  readonly name: string;
  /** What the client was built from (e.g. the KubeFedCluster and its token Secret). */
  readonly config: C;
  /** The member's client, owned by the Fleet: never close it. */
  readonly client: DynamicClient;
  /** Whether the readiness source reports the member Ready. */
  readonly ready: boolean;
}

/** Engage, disengage and readiness notifications of a {@link Fleet}. A throwing listener is logged and ignored. */
export interface FleetEvents {
  /** `name` was engaged (it is not Ready yet). */
  onEngaged?(name: string): void;
  /** `name` was disengaged: its client and informers are being stopped. */
  onDisengaged?(name: string): void;
  /** The set of Ready members changed (a member became Ready, stopped being Ready, or left while Ready): the Ready names, sorted. */
  onReadyChange?(ready: readonly string[]): void;
  /**
   * A request or watch of `name`'s client failed to reach the member (connection refused or
   * reset, name resolution, TLS): whether it is still reachable is in doubt. Called for every such
   * failure, so often while a member is down.
   */
  onConnectionFailed?(name: string): void;
}

/** What a shared member informer watches: one resource, optionally one namespace and a label selector. */
export type MemberInformerSpec = InformerSpec;

/** Options of {@link Fleet}. */
export interface FleetOptions<C> {
  /**
   * Builds a member's client from its config on engage; the Fleet closes it on disengage. Its
   * errors are thrown by {@link Fleet.engage} (the member then stays disengaged).
   */
  readonly connect: (name: string, config: C) => DynamicClient;
  /** Whether two configs are the same (re-engaging keeps the client and informers); default JSON equality. */
  readonly sameConfig?: (a: C, b: C) => boolean;
  /** Default silent. */
  readonly logger?: Logger;
  /** Clock of the informers; default the system clock. */
  readonly clock?: Clock;
  /**
   * At most this many members are engaged at once: {@link Fleet.engage} of another one throws
   * FleetFullError (it costs nothing: no client, informers or sync worker). Default unlimited.
   */
  readonly maxMembers?: number | undefined;
  /**
   * What each member's informers may hold together (objects, approximate bytes, pages per
   * list). A member past it is disengaged at once, and {@link Fleet.engage} refuses it with the
   * CacheBudgetExceededError for `overBudgetRetryMs`; {@link Fleet.overBudget} says why. Default unlimited.
   */
  readonly cacheBudget?: CacheBudgetLimits | undefined;
  /** How long a member cut off by its cache budget is refused before it is engaged again; default 5 minutes. */
  readonly overBudgetRetryMs?: number | undefined;
}

interface Member<C> {
  readonly config: C;
  readonly client: DynamicClient;
  readonly abort: AbortController;
  readonly informers: SharedInformers;
  /** Settles once the member's informers stopped. */
  readonly informersDone: Promise<void>;
  /** Removes the client's network error listener. */
  readonly unlisten: () => void;
  ready: boolean;
}

/**
 * The member clusters of this process (in the spirit of multicluster-runtime's provider and
 * engage / disengage): the one place that knows each member's name, config, client and
 * readiness, and that hands out one shared informer per (cluster, resource, namespace, label
 * selector), started once and reference-counted across every controller and worker that reads
 * it. A provider (the cluster health controller, or a KubeFedCluster status reader in a
 * workers-only process) calls {@link engage} / {@link disengage} and {@link setReady}; consumers
 * read {@link readyClusters} and subscribe to the events. Disengaging a member stops its
 * informers, then closes its client. A runnable: stopping it disengages every member, and it engages none after that.
 */
export class Fleet<C = unknown> implements Runnable {
  readonly name = 'fleet';
  /** Runs on every replica: a workers-only or standby process keeps its members too. */
  readonly needLeaderElection = false;
  readonly #o: FleetOptions<C>;
  readonly #logger: Logger;
  readonly #members = new Map<string, Member<C>>();
  readonly #listeners = new Set<FleetEvents>();
  /** Members cut off by their cache budget, until when they are refused. */
  readonly #overBudget = new Map<string, { readonly err: CacheBudgetExceededError; readonly until: number }>();
  #stopped = false;

  constructor(options: FleetOptions<C>) {
    this.#o = options;
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'fleet' });
  }

  /**
   * Engages `name` with `config`: a no-op returning the current client when engaged with the
   * same config; otherwise the previous engagement (if any) is disengaged and a client is built
   * with `connect`. A newly engaged member is not Ready until {@link setReady}.
   *
   * @throws what `connect` throws; the member is then not engaged. FleetStoppedError once the
   * Fleet has stopped (no client is built that nothing would close). FleetFullError when `name`
   * is not engaged and `maxMembers` are. CacheBudgetExceededError while `name` is refused for
   * having passed its cache budget ({@link overBudget}).
   */
  engage(name: string, config: C): DynamicClient {
    if (this.#stopped) throw new FleetStoppedError(`cannot engage member cluster "${name}": the fleet has stopped`);
    const refused = this.overBudget(name);
    if (refused !== undefined) throw refused;
    const existing = this.#members.get(name);
    const limit = this.#o.maxMembers;
    if (existing === undefined && limit !== undefined && this.#members.size >= limit) {
      throw new FleetFullError(
        `cluster ${name} is not used: this controller manager already serves its maximum of ${limit} member clusters (--max-member-clusters); unjoin a cluster or raise the maximum`,
        { limit },
      );
    }
    if (existing !== undefined && (this.#o.sameConfig ?? jsonEqual)(existing.config, config)) return existing.client;
    if (existing !== undefined) void this.disengage(name);
    const client = this.#o.connect(name, config);
    const abort = new AbortController();
    const limits = this.#o.cacheBudget;
    // Only this engagement is cut off: a later one has a budget of its own.
    const budget =
      limits === undefined
        ? undefined
        : new CacheBudget(name, limits, (err) => {
            if (!abort.signal.aborted) this.#cutOff(name, err);
          });
    const informers = new SharedInformers({ cluster: name, client, logger: this.#logger, clock: this.#o.clock, budget });
    const informersDone = informers.start(abort.signal);
    const unlisten = client.onNetworkError(() => this.#emit((l) => l.onConnectionFailed?.(name)));
    this.#members.set(name, { config, client, abort, informers, informersDone, unlisten, ready: false });
    this.#logger.info({ cluster: name }, 'cluster engaged');
    this.#emit((l) => l.onEngaged?.(name));
    return client;
  }

  /** Disengages `name` (no-op when not engaged); resolves once its informers stopped and its client is closed. */
  async disengage(name: string): Promise<void> {
    const member = this.#members.get(name);
    if (member === undefined) return;
    this.#members.delete(name);
    member.unlisten();
    member.abort.abort();
    this.#logger.info({ cluster: name }, 'cluster disengaged');
    if (member.ready) this.#emitReady();
    this.#emit((l) => l.onDisengaged?.(name));
    await member.informersDone;
    member.client.close();
  }

  /**
   * Why `name` is refused, while it is: it passed its cache budget and was disengaged, less than
   * `overBudgetRetryMs` ago.
   */
  overBudget(name: string): CacheBudgetExceededError | undefined {
    const refused = this.#overBudget.get(name);
    if (refused === undefined) return undefined;
    if ((this.#o.clock ?? systemClock).now() < refused.until) return refused.err;
    this.#overBudget.delete(name);
    return undefined;
  }

  /** Records whether `name` is Ready (ignored when not engaged); notifies on a change only. */
  setReady(name: string, ready: boolean): void {
    const member = this.#members.get(name);
    if (member === undefined || member.ready === ready) return;
    member.ready = ready;
    this.#emitReady();
  }

  /** The engaged member `name`, Ready or not. */
  get(name: string): FleetMember<C> | undefined {
    const m = this.#members.get(name);
    return m === undefined ? undefined : { name, config: m.config, client: m.client, ready: m.ready };
  }

  /** Every engaged member, sorted by name. */
  members(): FleetMember<C>[] {
    return [...this.#members.keys()].sort().flatMap((name) => this.get(name) ?? []);
  }

  /** The Ready members' clients by name (a snapshot). */
  readyClusters(): ReadonlyMap<string, DynamicClient> {
    return new Map([...this.#members].filter(([, m]) => m.ready).map(([name, m]) => [name, m.client]));
  }

  /** The client of `name` while it is engaged and Ready. */
  readyClient(name: string): DynamicClient | undefined {
    const member = this.#members.get(name);
    return member?.ready === true ? member.client : undefined;
  }

  /** Whether `name` is engaged and Ready. */
  isReady(name: string): boolean {
    return this.#members.get(name)?.ready === true;
  }

  /** Subscribes to the events; returns the unsubscribe function. */
  subscribe(events: FleetEvents): () => void {
    this.#listeners.add(events);
    return () => this.#listeners.delete(events);
  }

  /** Subscribes to changes of the Ready set (`subscribe({ onReadyChange })`); returns the unsubscribe function. */
  onChange(listener: (ready: readonly string[]) => void): () => void {
    return this.subscribe({ onReadyChange: listener });
  }

  /**
   * A hold on the informer of `spec` in member `cluster`, started on the first request and
   * shared by every later one; it stops when the last holder releases it or the member is
   * disengaged. Undefined when `cluster` is not engaged. Handlers a holder adds are its own to
   * remove before releasing.
   */
  informer(cluster: string, spec: MemberInformerSpec): SharedInformer | undefined {
    return this.#members.get(cluster)?.informers.acquire(spec);
  }

  /** Runs until `signal` aborts, then disengages every member. */
  async start(signal: AbortSignal): Promise<void> {
    await untilAborted(signal);
    this.#stopped = true;
    await Promise.all([...this.#members.keys()].map((name) => this.disengage(name)));
  }

  #cutOff(name: string, err: CacheBudgetExceededError): void {
    const retryMs = this.#o.overBudgetRetryMs ?? 5 * 60_000;
    this.#overBudget.set(name, { err, until: (this.#o.clock ?? systemClock).now() + retryMs });
    this.#logger.warn({ cluster: name, err, durationMs: retryMs }, 'member cluster over its cache budget: disengaged');
    void this.disengage(name);
  }

  #emitReady(): void {
    const ready = [...this.#members].filter(([, m]) => m.ready).map(([name]) => name);
    ready.sort();
    this.#emit((l) => l.onReadyChange?.(ready));
  }

  #emit(call: (listener: FleetEvents) => void): void {
    for (const l of [...this.#listeners]) {
      try {
        call(l);
      } catch (err) {
        // A consumer's failure must not break the provider that engaged or probed the member.
        this.#logger.error({ err }, 'a fleet listener failed');
      }
    }
  }
}
