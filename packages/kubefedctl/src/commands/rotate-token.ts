/**
 * `kubefedctl rotate-token`: a new member token for a joined cluster, the old one revoked. The
 * join token is the legacy token of the member ServiceAccount `<cluster>-<host>` (a Secret of type
 * `kubernetes.io/service-account-token`, filled by the member's token controller), which never
 * expires: rotating it deletes that Secret (the member refuses the old token from then on),
 * creates it again, waits for the new token and writes it into the host Secret the
 * KubeFedCluster names. A short-lived token (`join --token-lifetime`) cannot be revoked alone:
 * rotating it re-creates the member ServiceAccount, which revokes every token of it, and asks the
 * member for a new one of the same lifetime. Nothing else of the join changes (RBAC, the
 * KubeFedCluster, the binding annotations of the host Secret).
 */
import { SECRET_CA_KEY, SECRET_TOKEN_KEY } from '@kubefed/api';
import {
  type DynamicClient,
  getOrUndefined,
  isNotFound,
  type KubeObject,
  issuedTokenPatch,
  requestMemberToken,
  shortLivedTokenOf,
} from '@kubefed/client';
import { KubefedctlError, causeMessage } from '../errors.js';
import {
  boundClusterOf,
  joinNames,
  type JoinNames,
  joinServiceAccountOf,
  serviceAccountObject,
  tokenSecretObject,
} from '../join-objects.js';
import { hintFor, type Output } from '../output.js';
import { GVR, kubectlRef } from '../resources.js';
import { waitForToken } from './join.js';

/** Options of {@link rotateToken}. */
export interface RotateTokenOptions {
  /** The joined cluster (its KubeFedCluster name). */
  cluster: string;
  /** The kubefed namespace in host and member. */
  kubefedNamespace: string;
  /** How long to wait for the member's token controller; default 30 000 ms. */
  tokenTimeoutMs?: number | undefined;
  /** Poll interval while waiting for the token; default 500 ms. */
  pollIntervalMs?: number | undefined;
}

/** What {@link rotateToken} rotated, objects named as kubectl names them ({@link kubectlRef}). */
export interface RotateTokenResult {
  /** The name of the host Secret that holds the new token (in the kubefed namespace). */
  readonly hostSecret: string;
  /** The member object re-created: the token Secret, or for a short-lived token the ServiceAccount. */
  readonly recreated: string;
}

/**
 * Rotates the member token of `options.cluster` (see the module doc). Refuses, writing nothing,
 * a cluster without a KubeFedCluster, a host Secret that is missing, bound to another cluster or
 * not bound, or made by a join that did not record its ServiceAccount (re-run `join
 * --error-on-existing=false` first). A failure after the old token was revoked says so: re-run.
 */
export async function rotateToken(
  options: RotateTokenOptions,
  targets: { host: DynamicClient; member: DynamicClient },
  out: Output,
): Promise<RotateTokenResult> {
  const { cluster } = options;
  const ns = options.kubefedNamespace;
  const fail = (message: string, hint?: string, cause?: unknown): KubefedctlError =>
    new KubefedctlError(`rotate-token ${cluster}: ${message}`, {
      ...(hint === undefined ? {} : { hint }),
      ...(cause === undefined ? {} : { cause }),
    });
  const rejoin = `re-run "kubefedctl join ${cluster} --error-on-existing=false"`;
  const hostSecrets = targets.host.resource(GVR.secrets, ns);
  const { secretName, hostSecret } = await readHostSecret(targets.host, options).catch((e: unknown) => {
    throw e instanceof KubefedctlError ? e : fail(causeMessage(e), hintFor(e), e);
  });
  const shown = `${ns}/${secretName}`;
  if (hostSecret === undefined) throw fail(`host secret ${shown} named by KubeFedCluster ${ns}/${cluster} does not exist`, rejoin);
  if (boundClusterOf(hostSecret) !== cluster)
    throw fail(`host secret ${shown} is not bound to ${cluster} (annotation kubefed.io/cluster-name); nothing was changed`, rejoin);
  const serviceAccount = joinServiceAccountOf(hostSecret);
  if (serviceAccount === undefined || !serviceAccount.startsWith(`${cluster}-`)) {
    throw fail(
      `host secret ${shown} does not name the member ServiceAccount of the join (annotation kubefed.io/join-service-account); nothing was changed`,
      rejoin,
    );
  }
  const names = joinNames(cluster, serviceAccount.slice(cluster.length + 1), ns);
  const shortLived = shortLivedTokenOf(hostSecret);
  if (shortLived !== undefined) {
    await rotateShortLived({ names, lifetimeSeconds: shortLived.lifetimeSeconds, secretName }, targets, { out, fail });
    return { hostSecret: secretName, recreated: kubectlRef(serviceAccountObject(names)) };
  }
  const memberSecrets = targets.member.resource(GVR.secrets, ns);
  const memberShown = `${ns}/${names.serviceAccount}`;
  try {
    await memberSecrets.delete(names.serviceAccount);
    out.progress(`deleted token secret ${memberShown} in ${cluster}: its token is revoked`);
  } catch (e) {
    if (!isNotFound(e))
      throw fail(`cannot delete token secret ${memberShown} in ${cluster}: ${causeMessage(e)}; nothing was changed`, hintFor(e), e);
  }
  try {
    await memberSecrets.create(tokenSecretObject(names));
    const token = await waitForToken(memberSecrets, names.serviceAccount, `token secret ${memberShown} in ${cluster}`, {
      timeoutMs: options.tokenTimeoutMs ?? 30_000,
      intervalMs: options.pollIntervalMs ?? 500,
      out,
    });
    const data: Record<string, string> = {
      [SECRET_TOKEN_KEY]: token.token,
      ...(token.caCrt === undefined ? {} : { [SECRET_CA_KEY]: token.caCrt }),
    };
    await hostSecrets.patch(secretName, { data }, 'merge');
  } catch (e) {
    throw fail(
      `the old token is revoked but the new one is not in place (${causeMessage(e)}): ${cluster} is not reachable until this succeeds`,
      `re-run "kubefedctl rotate-token ${cluster}"`,
      e,
    );
  }
  return { hostSecret: secretName, recreated: kubectlRef(tokenSecretObject(names)) };
}

/** The KubeFedCluster's Secret name and the Secret (undefined when missing); a KubefedctlError without a KubeFedCluster. */
async function readHostSecret(
  host: DynamicClient,
  options: RotateTokenOptions,
): Promise<{ secretName: string; hostSecret: KubeObject | undefined }> {
  const ns = options.kubefedNamespace;
  const kfc = await getOrUndefined(host.resource(GVR.kubeFedClusters, ns), options.cluster);
  if (kfc === undefined) {
    throw new KubefedctlError(`rotate-token ${options.cluster}: no KubeFedCluster ${ns}/${options.cluster} in the host`, {
      hint: `join it first: kubefedctl join ${options.cluster}`,
    });
  }
  const secretName = (kfc['spec'] as { secretRef?: { name?: string } } | undefined)?.secretRef?.name ?? '';
  return { secretName, hostSecret: secretName === '' ? undefined : await getOrUndefined(host.resource(GVR.secrets, ns), secretName) };
}

/** Re-creates the member ServiceAccount (revoking its tokens) and writes a new short-lived token, with its expiry, into the host Secret. */
async function rotateShortLived(
  r: { names: JoinNames; lifetimeSeconds: number; secretName: string },
  targets: { host: DynamicClient; member: DynamicClient },
  report: { out: Output; fail: (message: string, hint?: string, cause?: unknown) => KubefedctlError },
): Promise<void> {
  const { names } = r;
  const ns = names.namespace;
  const shown = `${ns}/${names.serviceAccount}`;
  const accounts = targets.member.resource(GVR.serviceAccounts, ns);
  try {
    await accounts.delete(names.serviceAccount);
    report.out.progress(`deleted service account ${shown} in ${names.cluster}: its tokens are revoked`);
  } catch (e) {
    if (!isNotFound(e))
      throw report.fail(
        `cannot delete service account ${shown} in ${names.cluster}: ${causeMessage(e)}; nothing was changed`,
        hintFor(e),
        e,
      );
  }
  try {
    await accounts.create(serviceAccountObject(names));
    const issued = await requestMemberToken(targets.member, {
      namespace: ns,
      serviceAccount: names.serviceAccount,
      lifetimeSeconds: r.lifetimeSeconds,
    });
    const patch = issuedTokenPatch(issued, r.lifetimeSeconds);
    await targets.host.resource(GVR.secrets, ns).patch(r.secretName, patch, 'merge');
  } catch (e) {
    throw report.fail(
      `the old token is revoked but the new one is not in place (${causeMessage(e)}): ${names.cluster} is not reachable until this succeeds`,
      `re-run "kubefedctl rotate-token ${names.cluster}"`,
      e,
    );
  }
}
