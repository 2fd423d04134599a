/**
 * Renewal of short-lived member tokens by the cluster health controller (docs/operations.md
 * "Member tokens"): a host token Secret that `kubefedctl join --token-lifetime` wrote says when
 * its token expires; once half of the lifetime has passed, the controller asks the member for a
 * new token of the same ServiceAccount with the current one (TokenRequest, which join allows the
 * ServiceAccount for itself only) and writes it into the Secret. The Secret's new version then
 * re-engages the member with the new token.
 */
import { RESOURCES } from '@kubefed/api';
import {
  issuedTokenPatch,
  requestMemberToken,
  shortLivedTokenOf,
  tokenRenewalDue,
  type DynamicClient,
  type KubeObject,
} from '@kubefed/client';
import type { Logger } from '@kubefed/runtime';

/** What {@link renewMemberTokenIfDue} did. */
export type TokenRenewal =
  /** A legacy token, or one not due yet: nothing was asked. */
  | { readonly kind: 'notDue' }
  /** A new token is in the Secret, expiring at `expiresAt` (epoch ms). */
  | { readonly kind: 'renewed'; readonly expiresAt: number }
  /** The member or the host refused; `message` says which and why (renewal is tried again at the next probe). */
  | { readonly kind: 'failed'; readonly message: string };

/** Inputs of {@link renewMemberTokenIfDue}. */
export interface TokenRenewalInput {
  readonly cluster: string;
  /** The host token Secret the member client was built from. */
  readonly secret: KubeObject;
  /** A client of the member authenticated with the Secret's current token. */
  readonly member: DynamicClient;
  readonly host: DynamicClient;
  readonly nowMs: number;
  readonly logger: Logger;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Renews the token of `secret` when it is a short-lived one past half of its lifetime: asks the
 * member for a token of the same lifetime and merge-patches `data.token` and the expiry
 * annotation of the Secret (with its resourceVersion, so that a Secret changed meanwhile, by a
 * re-join or `rotate-token`, is left as it is). Never throws: a failure is logged and returned.
 */
export async function renewMemberTokenIfDue(input: TokenRenewalInput): Promise<TokenRenewal> {
  const { cluster, secret, logger } = input;
  const current = shortLivedTokenOf(secret);
  if (current === undefined || !tokenRenewalDue(current, input.nowMs)) return { kind: 'notDue' };
  const secretName = `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  let issued;
  try {
    issued = await requestMemberToken(input.member, current, input.signal);
  } catch (err) {
    const message = `cannot renew the token of cluster ${cluster}: the member refused a token for service account ${current.namespace}/${current.serviceAccount}: ${causeMessage(err)}`;
    logger.warn({ err, cluster }, 'renewing the member token failed');
    return { kind: 'failed', message };
  }
  const { metadata, data } = issuedTokenPatch(issued, current.lifetimeSeconds);
  const patch = { metadata: { ...metadata, resourceVersion: secret.metadata.resourceVersion }, data };
  try {
    await input.host.resource(RESOURCES.secrets, secret.metadata.namespace).patch(secret.metadata.name ?? '', patch, 'merge');
  } catch (err) {
    const message = `cannot renew the token of cluster ${cluster}: writing host Secret ${secretName} failed: ${causeMessage(err)}`;
    logger.warn({ err, cluster }, 'renewing the member token failed');
    return { kind: 'failed', message };
  }
  logger.info({ cluster }, 'member token renewed');
  return { kind: 'renewed', expiresAt: issued.expiresAt };
}

function causeMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
