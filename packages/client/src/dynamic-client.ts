import { KUBEFED_NAMESPACE_DEFAULT, RESOURCES } from '@kubefed/api';
import type { ApiError } from './api-error.js';
import { connectionFromKubeFedCluster, type KubeFedClusterInput, type SecretInput } from './cluster-config.js';
import { HttpDiscovery } from './discovery.js';
import { type ClusterConnection, HttpTransport, type TransportOptions } from './http-transport.js';
import type { Kubeconfig } from './kubeconfig.js';
import { HttpResourceClient } from './resource-client.js';
import { RestMapper } from './rest-mapper.js';
import type { GroupVersionResource, KubeObject, ResourceClient } from './types.js';

/** Options of a {@link DynamicClient}: timeouts and rate limits of its cluster. */
export type ClientOptions = TransportOptions;

/**
 * A raw JSON client for one cluster (built from a kubeconfig context or a KubeFedCluster):
 * any group/version/resource, objects passed through unchanged. Holds a keep-alive connection
 * pool and a rate limiter; {@link close} releases the sockets.
 */
export class DynamicClient implements Disposable {
  private readonly transport: HttpTransport;
  private mapper: RestMapper | undefined;

  constructor(
    private readonly connection: ClusterConnection,
    options: ClientOptions = {},
  ) {
    this.transport = new HttpTransport(connection, options);
  }

  /** A client for a kubeconfig context (default: current). Throws ConfigError for a bad context. */
  static fromKubeconfig(
    kubeconfig: Kubeconfig,
    options: ClientOptions & { context?: string | undefined; clusterName?: string | undefined } = {},
  ): DynamicClient {
    const { context, clusterName, ...rest } = options;
    const conn = kubeconfig.connection({
      ...(context === undefined ? {} : { context }),
      ...(clusterName === undefined ? {} : { clusterName }),
    });
    return new DynamicClient(conn, rest);
  }

  /**
   * A client for a member cluster from its KubeFedCluster and token Secret (KubeFed's rules:
   * see {@link connectionFromKubeFedCluster}). Throws ConfigError when malformed.
   */
  static fromKubeFedCluster(cluster: KubeFedClusterInput, secret: SecretInput, options: ClientOptions = {}): DynamicClient {
    return new DynamicClient(connectionFromKubeFedCluster(cluster, secret), options);
  }

  /**
   * Reads the Secret named by `cluster.spec.secretRef` through `host` (in the KubeFedCluster's
   * namespace, default `kube-federation-system`) and builds the member client. Rejects with
   * ApiError (e.g. NotFound for a missing Secret) or ConfigError.
   */
  static async forKubeFedCluster(host: DynamicClient, cluster: KubeFedClusterInput, options: ClientOptions = {}): Promise<DynamicClient> {
    const namespace = cluster.metadata.namespace ?? KUBEFED_NAMESPACE_DEFAULT;
    const secret = await host.resource(RESOURCES.secrets, namespace).get(cluster.spec.secretRef.name);
    return DynamicClient.fromKubeFedCluster(cluster, secret as SecretInput, options);
  }

  /** Name of the cluster (used in error messages). */
  get cluster(): string {
    return this.connection.name;
  }

  /** The API server URL. */
  get server(): string {
    return this.connection.server;
  }

  /** The kubeconfig context's namespace, if it sets one. */
  get defaultNamespace(): string | undefined {
    return this.connection.namespace;
  }

  /** Operations on one resource, within `namespace` when given (else cluster-wide). */
  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, namespace?: string): ResourceClient<T> {
    return new HttpResourceClient<T>(this.transport, gvr, namespace);
  }

  /**
   * A request to an arbitrary path (e.g. `/healthz`, `/version`) with the cluster's credentials.
   * Never throws for HTTP status codes: returns status + body text. Rejects with ApiError
   * NetworkError / Timeout on transport failures. `body` is sent as is when a string, else as JSON
   * (`contentType` default `application/json`); `accept` default `application/json, *\/*`.
   */
  async raw(
    path: string,
    opts: { method?: string; body?: unknown; timeoutMs?: number; signal?: AbortSignal; accept?: string; contentType?: string } = {},
  ): Promise<{ status: number; body: string }> {
    const method = opts.method ?? 'GET';
    const [p, q] = path.split('?', 2) as [string, string | undefined];
    const res = await this.transport.request({
      method,
      path: p,
      query: q === undefined ? undefined : new URLSearchParams(q),
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      accept: opts.accept ?? 'application/json, */*',
      contentType: opts.contentType,
      description: { verb: method, resource: p, cluster: this.connection.name },
    });
    return { status: res.status, body: res.body };
  }

  /** Discovery of the cluster's API groups and resources (uncached; see {@link restMapper}). */
  discovery(): HttpDiscovery {
    return new HttpDiscovery(this);
  }

  /** The cluster's REST mapper (one per client, cached, refreshed when a type is unknown). */
  restMapper(): RestMapper {
    this.mapper ??= new RestMapper(this.discovery());
    return this.mapper;
  }

  /**
   * Calls `listener` whenever a request or the opening of a watch fails to reach the server
   * (ApiError `NetworkError`: refused, reset, name resolution, TLS); returns the function that
   * removes it. A listener must not throw.
   */
  onNetworkError(listener: (err: ApiError) => void): () => void {
    return this.transport.onNetworkError(listener);
  }

  /** Releases pooled connections; requests still running fail. */
  close(): void {
    this.transport.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
