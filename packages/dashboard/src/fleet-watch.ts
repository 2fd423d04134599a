import { RESOURCES, federatedTypeConfigSchema, type FederatedTypeConfig } from '@kubefed/api';
import { type DynamicClient, type GroupVersionResource, jsonEqual, type KubeObject } from '@kubefed/client';
import { Informer, listerWatcherFor, silentLogger, type Logger } from '@kubefed/runtime';

/** One enabled federated type, from its FederatedTypeConfig. */
export interface WatchedType {
  /** The FTC name, e.g. `deployments.apps`. */
  readonly name: string;
  /** e.g. `FederatedDeployment`. */
  readonly kind: string;
  readonly gvr: GroupVersionResource;
  /** The member objects' resource (`spec.targetType`). */
  readonly target: GroupVersionResource;
  /** The member objects' type as the sync controller renders it (`spec.targetType`). */
  readonly targetType: { readonly group: string; readonly version: string; readonly kind: string; readonly namespaced: boolean };
  readonly namespaced: boolean;
}

/** What the dashboard shows, as last seen by the watches. Objects are frozen cache entries. */
export interface FleetSnapshot {
  readonly clusters: readonly KubeObject[];
  readonly types: readonly WatchedType[];
  /** Federated objects by FTC name. */
  readonly objects: ReadonlyMap<string, readonly KubeObject[]>;
  readonly rsps: readonly KubeObject[];
}

/** Options of {@link FleetWatch}. */
export interface FleetWatchOptions {
  readonly host: DynamicClient;
  /** Namespace of the KubeFedClusters and FederatedTypeConfigs. */
  readonly kubefedNamespace: string;
  /** Called (synchronously, possibly often) after any watched object changed. */
  readonly onChange: () => void;
  /** Default silent. */
  readonly logger?: Logger;
}

interface TypeWatch {
  readonly type: WatchedType;
  readonly informer: Informer;
  readonly abort: AbortController;
}

const sameType = (a: WatchedType, b: WatchedType): boolean =>
  jsonEqual(a.targetType, b.targetType) &&
  a.kind === b.kind &&
  a.namespaced === b.namespaced &&
  a.gvr.group === b.gvr.group &&
  a.gvr.version === b.gvr.version &&
  a.gvr.resource === b.gvr.resource;

/**
 * Watches the host like the control plane does (runtime informers: list, then watch, re-list on
 * expiry): KubeFedClusters, FederatedTypeConfigs, ReplicaSchedulingPreferences, and the
 * federated objects of every type an FTC names (informers start and stop as FTCs come and go).
 * Read-only. `start(signal)` runs until the signal aborts.
 */
export class FleetWatch {
  readonly #o: FleetWatchOptions;
  readonly #logger: Logger;
  readonly #clusters: Informer;
  readonly #ftcs: Informer;
  readonly #rsps: Informer;
  readonly #types = new Map<string, TypeWatch>();
  #signal: AbortSignal | undefined;

  constructor(options: FleetWatchOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger();
    const ns = options.kubefedNamespace;
    this.#clusters = this.#informer('kubefedclusters', RESOURCES.kubeFedClusters, ns);
    this.#ftcs = this.#informer('federatedtypeconfigs', RESOURCES.federatedTypeConfigs, ns);
    this.#rsps = this.#informer('replicaschedulingpreferences', RESOURCES.replicaSchedulingPreferences, undefined);
  }

  /** Starts every informer; resolves once the clusters, FTCs and RSPs are listed (or the signal aborts). */
  async start(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    for (const informer of [this.#clusters, this.#ftcs, this.#rsps]) void informer.start(signal);
    this.#ftcs.addEventHandler({ onAdd: () => this.#syncTypes(), onUpdate: () => this.#syncTypes(), onDelete: () => this.#syncTypes() });
    await Promise.all([this.#clusters, this.#ftcs, this.#rsps].map((i) => i.waitForSync(signal)));
    this.#syncTypes();
    await Promise.all([...this.#types.values()].map((t) => t.informer.waitForSync(signal)));
  }

  /** The current state of every watch. */
  snapshot(): FleetSnapshot {
    const types = [...this.#types.values()].map((t) => t.type).sort((a, b) => a.name.localeCompare(b.name));
    const objects = new Map([...this.#types].map(([name, t]) => [name, t.informer.store.list()]));
    return { clusters: this.#clusters.store.list(), types, objects, rsps: this.#rsps.store.list() };
  }

  #informer(name: string, gvr: GroupVersionResource, namespace: string | undefined): Informer {
    const informer = new Informer({ name, listerWatcher: listerWatcherFor(this.#o.host.resource(gvr, namespace)), logger: this.#logger });
    const changed = (): void => this.#o.onChange();
    informer.addEventHandler({ onAdd: changed, onUpdate: (a, b) => a !== b && changed(), onDelete: changed });
    return informer;
  }

  /** Starts an informer for each type an FTC names and stops those whose FTC is gone or changed. */
  #syncTypes(): void {
    const signal = this.#signal;
    if (signal === undefined || signal.aborted) return;
    const wanted = new Map<string, WatchedType>();
    for (const raw of this.#ftcs.store.list()) {
      const parsed = federatedTypeConfigSchema.safeParse(raw);
      if (parsed.success) wanted.set(parsed.data.metadata.name ?? '', watchedTypeOf(parsed.data));
    }
    for (const [name, watch] of this.#types) {
      const want = wanted.get(name);
      if (want !== undefined && sameType(want, watch.type)) continue;
      watch.abort.abort();
      this.#types.delete(name);
    }
    for (const [name, type] of wanted) {
      if (this.#types.has(name)) continue;
      const abort = new AbortController();
      signal.addEventListener('abort', () => abort.abort(), { once: true });
      const informer = this.#informer(type.kind, type.gvr, undefined);
      this.#types.set(name, { type, informer, abort });
      void informer.start(abort.signal);
    }
    this.#o.onChange();
  }
}

function watchedTypeOf(ftc: FederatedTypeConfig): WatchedType {
  const f = ftc.spec.federatedType;
  const t = ftc.spec.targetType;
  return {
    target: { group: t.group ?? '', version: t.version, resource: t.pluralName },
    targetType: { group: t.group ?? '', version: t.version, kind: t.kind, namespaced: t.scope === 'Namespaced' },
    name: ftc.metadata.name ?? '',
    kind: f.kind,
    gvr: { group: f.group ?? '', version: f.version, resource: f.pluralName },
    namespaced: f.scope === 'Namespaced',
  };
}
