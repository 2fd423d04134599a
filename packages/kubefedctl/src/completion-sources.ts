import {
  DEFAULT_FEDERATED_TYPES,
  KUBEFED_NAMESPACE_DEFAULT,
  federatedPlural,
  federatedTypeConfigSchema,
  groupQualifiedName,
} from '@kubefed/api';
import type { DynamicClient } from '@kubefed/client';
import type { CompletionConnection, CompletionSources } from './completion.js';
import { clientForContext, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
import { GVR } from './resources.js';

/** How long completion waits for the host; a shell must not hang on an unreachable cluster. */
const COMPLETION_TIMEOUT_MS = 3000;

/**
 * Completion sources reading the kubeconfig (kubectl's rules, with `env`'s `KUBECONFIG` and
 * `HOME`) and the host of the words typed so far. Every failure (no kubeconfig, host down)
 * yields no names, except that type names fall back to KubeFed's default types.
 */
export function kubeconfigCompletionSources(env: Readonly<Record<string, string | undefined>>): CompletionSources {
  const kubeconfigOf = (conn: CompletionConnection) =>
    loadKubeconfig({ kubeconfig: conn.kubeconfig, KUBECONFIG: env['KUBECONFIG'], home: env['HOME'] });
  const withHost = async (
    conn: CompletionConnection,
    read: (host: DynamicClient, ns: string) => Promise<string[]>,
  ): Promise<string[] | undefined> => {
    let host: DynamicClient | undefined;
    try {
      const kubeconfig = kubeconfigOf(conn);
      host = clientForContext(kubeconfig, resolveContextName(kubeconfig, conn.hostClusterContext, '--host-cluster-context'), {
        timeoutMs: COMPLETION_TIMEOUT_MS,
      });
      return await read(host, conn.kubefedNamespace ?? KUBEFED_NAMESPACE_DEFAULT);
    } catch {
      return undefined;
    } finally {
      host?.close();
    }
  };
  const ftcs = async (host: DynamicClient, ns: string) =>
    (await host.resource(GVR.federatedTypeConfigs, ns).listAll()).items.flatMap((i) => {
      const p = federatedTypeConfigSchema.safeParse(i);
      return p.success ? [p.data] : [];
    });
  const defaults = DEFAULT_FEDERATED_TYPES.map((t) => groupQualifiedName(t));
  return {
    contexts: (conn) => {
      try {
        return kubeconfigOf(conn)
          .contexts()
          .map((c) => c.name);
      } catch {
        return [];
      }
    },
    targetTypes: async (conn) =>
      (await withHost(conn, async (host) =>
        (await host.restMapper().all()).map((m) => groupQualifiedName({ pluralName: m.resource, group: m.group })),
      )) ?? defaults,
    enabledTypes: async (conn) =>
      (await withHost(conn, async (host, ns) => (await ftcs(host, ns)).map((f) => f.metadata.name ?? ''))) ?? defaults,
    federatedTypes: async (conn) =>
      (await withHost(conn, async (host, ns) => (await ftcs(host, ns)).map((f) => f.spec.federatedType.pluralName))) ??
      DEFAULT_FEDERATED_TYPES.map((t) => federatedPlural(t.pluralName)),
    joinedClusters: async (conn) =>
      (await withHost(conn, async (host, ns) =>
        (await host.resource(GVR.kubeFedClusters, ns).listAll()).items.map((k) => k.metadata.name ?? ''),
      )) ?? [],
  };
}
