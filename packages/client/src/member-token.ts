/**
 * Short-lived member tokens (docs/operations.md "Member tokens"): `kubefedctl join
 * --token-lifetime` asks the member for a token of its ServiceAccount through the TokenRequest
 * API instead of reading a never-expiring legacy token Secret, and records in the host token
 * Secret when it expires and for how long tokens are issued. The control plane then asks the
 * member for a new token with the current one once half of its lifetime has passed, and writes it
 * into the same Secret, KubeFed's layout unchanged (`data.token`, `data["ca.crt"]`).
 */
import { RESOURCES } from '@kubefed/api';
import { KubeFedClientError } from './api-error.js';
import type { DynamicClient } from './dynamic-client.js';
import type { KubeObject } from './types.js';

/** Annotation on a host token Secret: when its token expires (RFC 3339, UTC). Absent: the token does not expire (a legacy token). */
export const TOKEN_EXPIRATION_ANNOTATION = 'kubefed.io/token-expiration';

/** Annotation on a host token Secret: the lifetime, in seconds, of each token asked for; the control plane renews at half of it. */
export const TOKEN_LIFETIME_ANNOTATION = 'kubefed.io/token-lifetime-seconds';

/**
 * Annotation on a host token Secret (written by `kubefedctl join`): the member ServiceAccount, in
 * the member's kubefed namespace (the Secret's namespace), whose token the Secret holds.
 */
export const JOIN_SERVICE_ACCOUNT_ANNOTATION = 'kubefed.io/join-service-account';

/** The shortest lifetime the TokenRequest API grants: 10 minutes. */
export const MIN_TOKEN_LIFETIME_SECONDS = 600;

/** A short-lived token a host Secret holds: the member ServiceAccount it is of, its lifetime and expiry. */
export interface ShortLivedToken {
  /** `<namespace>/<name>` of the member ServiceAccount. */
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly lifetimeSeconds: number;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/**
 * What a host Secret says of its short-lived token: undefined for a legacy token (no
 * {@link TOKEN_EXPIRATION_ANNOTATION}), or when an annotation is unreadable or the Secret does not
 * name its ServiceAccount ({@link JOIN_SERVICE_ACCOUNT_ANNOTATION}), so that nothing is renewed on a guess.
 */
export function shortLivedTokenOf(secret: KubeObject): ShortLivedToken | undefined {
  const annotations = secret.metadata.annotations ?? {};
  const serviceAccount = annotations[JOIN_SERVICE_ACCOUNT_ANNOTATION];
  const expiresAt = Date.parse(annotations[TOKEN_EXPIRATION_ANNOTATION] ?? '');
  const lifetimeSeconds = Number(annotations[TOKEN_LIFETIME_ANNOTATION] ?? '');
  const namespace = secret.metadata.namespace;
  if (!Number.isFinite(expiresAt) || !Number.isInteger(lifetimeSeconds) || lifetimeSeconds < MIN_TOKEN_LIFETIME_SECONDS) return undefined;
  if (serviceAccount === undefined || serviceAccount === '' || namespace === undefined) return undefined;
  return { namespace, serviceAccount, lifetimeSeconds, expiresAt };
}

/** Whether `token` is due for renewal at `nowMs`: half of its lifetime has passed. */
export function tokenRenewalDue(token: ShortLivedToken, nowMs: number): boolean {
  return nowMs >= token.expiresAt - (token.lifetimeSeconds * 1000) / 2;
}

/** A token the member issued, as the host Secret stores it. */
export interface IssuedToken {
  /** The token itself (not base64). */
  readonly token: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/**
 * Asks `member` for a token of the ServiceAccount `namespace/serviceAccount` lasting
 * `lifetimeSeconds` (`POST .../serviceaccounts/<name>/token`). The member may shorten the lifetime
 * (kube-apiserver's `--service-account-max-token-expiration`): the expiry it answers is returned.
 *
 * @throws the member's ApiError (e.g. Forbidden without `create` on `serviceaccounts/token`).
 */
export async function requestMemberToken(
  member: DynamicClient,
  sa: { readonly namespace: string; readonly serviceAccount: string; readonly lifetimeSeconds: number },
  signal?: AbortSignal,
): Promise<IssuedToken> {
  const request: KubeObject = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name: sa.serviceAccount, namespace: sa.namespace },
    spec: { expirationSeconds: sa.lifetimeSeconds },
  };
  const answer = await member
    .resource(RESOURCES.serviceAccounts, sa.namespace)
    .createSubresource(sa.serviceAccount, 'token', request, { signal });
  const status = (answer['status'] ?? {}) as { token?: unknown; expirationTimestamp?: unknown };
  const expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
  if (typeof status.token !== 'string' || status.token === '' || !Number.isFinite(expiresAt))
    throw new KubeFedClientError(
      `the TokenRequest for ${sa.namespace}/${sa.serviceAccount} was answered without status.token and status.expirationTimestamp`,
    );
  return { token: status.token, expiresAt };
}

/** The annotations a host Secret gets with an issued token: its expiry and the lifetime asked for. */
export function tokenAnnotations(token: IssuedToken, lifetimeSeconds: number): Record<string, string> {
  return {
    [TOKEN_EXPIRATION_ANNOTATION]: new Date(Math.floor(token.expiresAt / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z'),
    [TOKEN_LIFETIME_ANNOTATION]: String(lifetimeSeconds),
  };
}

/** The merge patch of a host token Secret that holds `token` from now on: its base64 `data.token` and {@link tokenAnnotations}. */
export function issuedTokenPatch(
  token: IssuedToken,
  lifetimeSeconds: number,
): { metadata: { annotations: Record<string, string> }; data: { token: string } } {
  return {
    metadata: { annotations: tokenAnnotations(token, lifetimeSeconds) },
    data: { token: Buffer.from(token.token, 'utf8').toString('base64') },
  };
}
