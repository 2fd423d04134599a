import { RESOURCES } from '@kubefed/api';
import {
  ConfigError,
  isNotFound,
  memberClientFromSecret,
  SecretNotBoundError,
  type DynamicClient,
  type KubeFedClusterInput,
  type KubeObject,
} from '@kubefed/client';
import type { Logger } from '@kubefed/runtime';

interface Entry {
  readonly secretVersion: string;
  readonly client: DynamicClient | undefined;
}

const isReady = (cluster: KubeObject): boolean =>
  ((cluster.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/**
 * Member cluster clients for a workers-only process (which runs no cluster health controller):
 * built from each KubeFedCluster and its token Secret (re-built when the Secret changes), and
 * handed out only while the KubeFedCluster's status says `Ready` (as written by the leader's
 * health controller). A Secret not bound to the cluster (`memberClientFromSecret`) gives no
 * client, whatever the status says. Feed it the KubeFedCluster informer's events; `close()`
 * closes every client.
 */
export class MemberClients {
  readonly #host: DynamicClient;
  readonly #namespace: string;
  readonly #logger: Logger;
  readonly #rateLimit: { qps: number; burst: number } | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #ready = new Set<string>();
  /** Why the last client build of a cluster failed, until one succeeds. */
  readonly #errors = new Map<string, Error>();

  constructor(options: { host: DynamicClient; namespace: string; logger: Logger; rateLimit?: { qps: number; burst: number } }) {
    this.#host = options.host;
    this.#rateLimit = options.rateLimit;
    this.#namespace = options.namespace;
    this.#logger = options.logger;
  }

  /** The client of `cluster` while it is Ready; undefined otherwise. */
  get(cluster: string): DynamicClient | undefined {
    return this.#ready.has(cluster) ? this.#entries.get(cluster)?.client : undefined;
  }

  /**
   * Why `cluster`, Ready, has no client: the error of its last client build (e.g. a Secret not
   * bound to it); undefined while it has a client, is not Ready, or no build has ended yet.
   */
  clientError(cluster: string): Error | undefined {
    return this.get(cluster) === undefined && this.#ready.has(cluster) ? this.#errors.get(cluster) : undefined;
  }

  /** A KubeFedCluster was added or changed: refresh its readiness and (re)build its client. Never rejects. */
  async update(cluster: KubeObject): Promise<void> {
    const name = cluster.metadata.name ?? '';
    if (isReady(cluster)) this.#ready.add(name);
    else this.#ready.delete(name);
    const secretName = (cluster.spec as { secretRef?: { name?: string } } | undefined)?.secretRef?.name ?? '';
    try {
      const secret = await this.#host.resource(RESOURCES.secrets, this.#namespace).get(secretName);
      const version = `${cluster.metadata.resourceVersion ?? ''}/${secret.metadata.resourceVersion ?? ''}`;
      if (this.#entries.get(name)?.secretVersion === version) return;
      const client = memberClientFromSecret(cluster as unknown as KubeFedClusterInput, secret, this.#rateLimit ?? {});
      this.#entries.get(name)?.client?.close();
      this.#entries.set(name, { secretVersion: version, client });
      this.#errors.delete(name);
    } catch (err) {
      this.#errors.set(name, err instanceof Error ? err : new Error(String(err)));
      if (err instanceof ConfigError || isNotFound(err)) {
        // The spec or Secret the previous client was built from no longer holds: stop using it.
        this.#entries.get(name)?.client?.close();
        this.#entries.delete(name);
      }
      if (err instanceof SecretNotBoundError)
        this.#logger.warn(
          { cluster: name, secret: secretName, reason: err.problem.kind },
          'the secret of the cluster is not bound to it; its token is not used',
        );
      else this.#logger.warn({ cluster: name, err }, 'cannot build a client for the member cluster');
    }
  }

  /** A KubeFedCluster was deleted: forget it and close its client. */
  remove(name: string): void {
    this.#ready.delete(name);
    this.#errors.delete(name);
    this.#entries.get(name)?.client?.close();
    this.#entries.delete(name);
  }

  /** Closes every client. */
  close(): void {
    for (const name of [...this.#entries.keys()]) this.remove(name);
  }
}
