import { type ClientOptions, DynamicClient, Kubeconfig, kubeconfigPaths } from '@kubefed/client';
import { ContextError } from './errors.js';

/** What `join` needs to know about a kubeconfig context besides a client. */
export interface ContextDetails {
  /** The context name. */
  context: string;
  /** The API server URL of the context's cluster. */
  server: string;
  /** Base64 of the CA bundle (certificate-authority-data, or the certificate-authority file). */
  caData: string | undefined;
  /** The cluster sets `insecure-skip-tls-verify: true`. */
  insecureSkipTlsVerify: boolean;
  /** The cluster's `proxy-url`, if any. */
  proxyUrl: string | undefined;
}

/** How to find the kubeconfig: kubectl's rules. */
export interface KubeconfigSource {
  /** `--kubeconfig`: this one file. */
  kubeconfig?: string | undefined;
  /** `KUBECONFIG` (path-delimiter separated list). */
  KUBECONFIG?: string | undefined;
  /** Home directory (`~/.kube/config`). */
  home?: string | undefined;
}

/**
 * Loads the kubeconfig like kubectl: `--kubeconfig`, else the files in `KUBECONFIG` (merged, the
 * first current-context wins), else `~/.kube/config`. Throws {@link ContextError} naming the
 * file(s) when none can be read.
 */
export function loadKubeconfig(source: KubeconfigSource): Kubeconfig {
  const files =
    source.kubeconfig !== undefined && source.kubeconfig !== ''
      ? [source.kubeconfig]
      : kubeconfigPaths({ KUBECONFIG: source.KUBECONFIG, home: source.home });
  if (files.length === 0) {
    throw new ContextError('no kubeconfig: --kubeconfig is not set, KUBECONFIG is empty and there is no home directory', {
      hint: 'pass --kubeconfig <file>',
    });
  }
  try {
    return Kubeconfig.fromFiles(files);
  } catch (e) {
    throw new ContextError(e instanceof Error ? e.message : String(e), {
      cause: e,
      hint: 'pass --kubeconfig <file> or set KUBECONFIG to a readable kubeconfig',
    });
  }
}

/** The context to use: the given one, else the kubeconfig's current-context. Throws {@link ContextError}. */
export function resolveContextName(kubeconfig: Kubeconfig, context: string | undefined, flag: string): string {
  const name = context ?? kubeconfig.currentContext;
  if (name === undefined || name === '') {
    throw new ContextError(`no ${flag} given and the kubeconfig has no current-context`, { hint: `pass ${flag} <context>` });
  }
  if (!kubeconfig.contexts().some((c) => c.name === name)) {
    const known = kubeconfig.contexts().map((c) => c.name);
    throw new ContextError(`kubeconfig has no context "${name}"`, {
      hint: `pass ${flag} with one of: ${known.length === 0 ? '(none)' : known.join(', ')}`,
    });
  }
  return name;
}

/** Server, CA and TLS settings of a context. Throws {@link ContextError} for a broken context. */
export function contextDetails(kubeconfig: Kubeconfig, context: string): ContextDetails {
  let conn;
  try {
    conn = kubeconfig.connection({ context });
  } catch (e) {
    throw new ContextError(e instanceof Error ? e.message : String(e), { cause: e, hint: 'fix the context in the kubeconfig' });
  }
  const ca = conn.tls.ca;
  return {
    context,
    server: conn.server,
    caData: ca === undefined ? undefined : Buffer.from(ca).toString('base64'),
    insecureSkipTlsVerify: conn.tls.insecureSkipVerify === true,
    proxyUrl: conn.proxyUrl === undefined || conn.proxyUrl === '' ? undefined : conn.proxyUrl,
  };
}

/**
 * A client for one context; `clusterName` is the name used in error messages (default: the
 * context). Throws {@link ContextError} for a broken context.
 */
export function clientForContext(
  kubeconfig: Kubeconfig,
  context: string,
  options: ClientOptions & { clusterName?: string } = {},
): DynamicClient {
  const { clusterName, ...rest } = options;
  try {
    return DynamicClient.fromKubeconfig(kubeconfig, { ...rest, context, clusterName: clusterName ?? context });
  } catch (e) {
    throw new ContextError(e instanceof Error ? e.message : String(e), { cause: e, hint: 'fix the context in the kubeconfig' });
  }
}
