import { RESOURCES } from '@kubefed/api';
import {
  ConfigError,
  isNotFound,
  SecretNotBoundError,
  type DynamicClient,
  type KubeFedClusterInput,
  type KubeObject,
} from '@kubefed/client';
import { FleetFullError, type Logger } from '@kubefed/runtime';
import type { MemberFleet } from './member-fleet.js';

/** Options of {@link ClusterStatusProvider}. */
export interface ClusterStatusProviderOptions {
  /** Client of the host cluster (reads the token Secrets). */
  readonly host: DynamicClient;
  /** The kubefed namespace (where KubeFedClusters and their Secrets live). */
  readonly namespace: string;
  /** Where members are engaged and their readiness set. */
  readonly fleet: MemberFleet;
  readonly logger: Logger;
}

const isReady = (cluster: KubeObject): boolean =>
  ((cluster.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/**
 * Feeds a {@link MemberFleet} for a process that runs no cluster health controller (`--mode
 * workers`): each KubeFedCluster is engaged with its token Secret (re-engaged when the Secret or
 * the cluster's spec changes) and its readiness follows the KubeFedCluster's `Ready` condition
 * as the leader's health controller wrote it. A Secret not bound to the cluster
 * (`memberClientFromSecret`) gives no client, whatever the status says: the cluster stays
 * disengaged and {@link clientError} says why. Feed it the KubeFedCluster informer's events.
 */
export class ClusterStatusProvider {
  readonly #o: ClusterStatusProviderOptions;
  /** Why the last engage of a cluster failed, until one succeeds. */
  readonly #errors = new Map<string, Error>();
  readonly #ready = new Set<string>();

  constructor(options: ClusterStatusProviderOptions) {
    this.#o = options;
  }

  /**
   * Why `cluster`, Ready, has no client: the error of its last client build (e.g. a Secret not
   * bound to it); undefined while it has a client, is not Ready, or no build has ended yet.
   */
  clientError(cluster: string): Error | undefined {
    return this.#ready.has(cluster) && this.#o.fleet.get(cluster) === undefined ? this.#errors.get(cluster) : undefined;
  }

  /** A KubeFedCluster was added or changed: (re-)engage it and set its readiness. Never rejects. */
  async update(cluster: KubeObject): Promise<void> {
    const { fleet, logger } = this.#o;
    const name = cluster.metadata.name ?? '';
    const ready = isReady(cluster);
    if (ready) this.#ready.add(name);
    else this.#ready.delete(name);
    const secretName = (cluster.spec as { secretRef?: { name?: string } } | undefined)?.secretRef?.name ?? '';
    try {
      const secret = await this.#o.host.resource(RESOURCES.secrets, this.#o.namespace).get(secretName);
      fleet.engage(name, { cluster: cluster as unknown as KubeFedClusterInput, secret });
      this.#errors.delete(name);
    } catch (err) {
      this.#errors.set(name, err instanceof Error ? err : new Error(String(err)));
      // The spec or Secret the previous client was built from no longer holds: stop using it.
      if (err instanceof ConfigError || isNotFound(err)) await fleet.disengage(name);
      if (err instanceof FleetFullError)
        logger.warn({ cluster: name, limit: err.limit }, 'too many member clusters: the cluster is not used');
      else if (err instanceof SecretNotBoundError)
        logger.warn(
          { cluster: name, secret: secretName, reason: err.problem.kind },
          'the secret of the cluster is not bound to it; its token is not used',
        );
      else logger.warn({ cluster: name, err }, 'cannot build a client for the member cluster');
    }
    // The readiness read last wins (an older update may finish after a newer one).
    fleet.setReady(name, this.#ready.has(name));
  }

  /** A KubeFedCluster was deleted: disengage it. */
  async remove(name: string): Promise<void> {
    this.#ready.delete(name);
    this.#errors.delete(name);
    await this.#o.fleet.disengage(name);
  }
}
