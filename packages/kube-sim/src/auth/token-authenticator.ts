import { randomBytes } from 'node:crypto';
import type { ObjectStore } from '../store/object-store.js';
import { isObject } from '../util/json.js';
import { adminUser, type Identity } from './identity.js';

interface IssuedToken {
  namespace: string;
  serviceAccount: string;
  serviceAccountUid: string;
  /** Legacy secret-based token: valid while this secret holds it. */
  secretName?: string;
  /** TokenRequest token: valid until then (ms since epoch). */
  expiresAt?: number;
}

/**
 * Bearer-token authentication: the admin token, legacy service-account token secrets and
 * TokenRequest tokens. A service-account token authenticates as
 * `system:serviceaccount:<ns>:<name>` until its secret or service account is gone.
 */
export class TokenAuthenticator {
  private readonly issued = new Map<string, IssuedToken>();

  constructor(
    private readonly store: ObjectStore,
    readonly adminToken: string,
    private readonly issuer: string,
  ) {}

  /** Mints a JWT-shaped token for a service account (not verifiable by clients; only the server reads it). */
  issue(namespace: string, serviceAccount: string, serviceAccountUid: string, extra: { secretName?: string; expiresAt?: number }): string {
    const header = b64url(JSON.stringify({ alg: 'RS256', kid: randomBytes(8).toString('hex') }));
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      sub: `system:serviceaccount:${namespace}:${serviceAccount}`,
      'kubernetes.io/serviceaccount/namespace': namespace,
      'kubernetes.io/serviceaccount/service-account.name': serviceAccount,
      'kubernetes.io/serviceaccount/service-account.uid': serviceAccountUid,
    };
    if (extra.secretName !== undefined) claims['kubernetes.io/serviceaccount/secret.name'] = extra.secretName;
    if (extra.expiresAt !== undefined) claims['exp'] = Math.floor(extra.expiresAt / 1000);
    const token = `${header}.${b64url(JSON.stringify(claims))}.${randomBytes(32).toString('base64url')}`;
    const entry: IssuedToken = { namespace, serviceAccount, serviceAccountUid };
    if (extra.secretName !== undefined) entry.secretName = extra.secretName;
    if (extra.expiresAt !== undefined) entry.expiresAt = extra.expiresAt;
    this.issued.set(token, entry);
    return token;
  }

  /** The identity of an `Authorization` header, or undefined (→ 401). */
  authenticate(authorization: string | undefined): Identity | undefined {
    if (authorization === undefined) return undefined;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (m === null) return undefined;
    const token = m[1]!;
    if (token === this.adminToken) return { user: adminUser, groups: ['system:masters', 'system:authenticated'], admin: true };
    const t = this.issued.get(token);
    if (t === undefined) return undefined;
    const sa = this.store.get('/serviceaccounts', t.namespace, t.serviceAccount);
    if (sa?.metadata.uid !== t.serviceAccountUid) return undefined;
    if (t.expiresAt !== undefined && Date.now() > t.expiresAt) return undefined;
    if (t.secretName !== undefined) {
      const secret = this.store.get('/secrets', t.namespace, t.secretName);
      const data = secret?.['data'];
      if (!isObject(data) || data['token'] !== Buffer.from(token, 'utf8').toString('base64')) return undefined;
    }
    return {
      user: `system:serviceaccount:${t.namespace}:${t.serviceAccount}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${t.namespace}`, 'system:authenticated'],
      admin: false,
      serviceAccount: { namespace: t.namespace, name: t.serviceAccount },
    };
  }
}

function b64url(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64url');
}
