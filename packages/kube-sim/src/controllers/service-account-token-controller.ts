import type { TokenAuthenticator } from '../auth/token-authenticator.js';
import type { RestOps } from '../resources/rest-ops.js';
import { badRequest, invalid, notFound } from '../util/status-error.js';
import { isObject, type JsonObject, nowTimestamp } from '../util/json.js';
import type { WorkScheduler } from './scheduler.js';

const tokenType = 'kubernetes.io/service-account-token';
const saNameAnnotation = 'kubernetes.io/service-account.name';
const saUidAnnotation = 'kubernetes.io/service-account.uid';

/**
 * The token controller: a Secret of type `kubernetes.io/service-account-token` annotated with
 * `kubernetes.io/service-account.name` gets `data.token`, `data.ca.crt` and `data.namespace`
 * (and the service-account uid annotation); such secrets are deleted with their service account,
 * and a secret naming a service account that does not exist (or another uid) is deleted, as
 * pkg/controller/serviceaccount/tokens_controller.go does.
 * Also publishes the `kube-root-ca.crt` ConfigMap in every namespace (root CA publisher).
 */
export function registerServiceAccountTokenController(
  ops: RestOps,
  work: WorkScheduler,
  credentials: { authn: TokenAuthenticator; caPem: string },
): void {
  ops.store.onChange((e) => {
    const ns = e.object.metadata.namespace ?? '';
    const name = e.object.metadata.name ?? '';
    if (e.grKey === '/secrets' && e.type !== 'DELETED' && e.object['type'] === tokenType)
      work.enqueue(`sa-token/${ns}/${name}`, () => fillTokenSecret(ops, credentials, { namespace: ns, name }));
    if (e.grKey === '/serviceaccounts' && e.type === 'DELETED') {
      work.enqueue(`sa-gone/${ns}/${name}`, () => {
        for (const s of ops.store.list('/secrets', ns)) {
          if (s['type'] === tokenType && s.metadata.annotations?.[saNameAnnotation] === name)
            ops.store.remove('/secrets', ns, s.metadata.name ?? '');
        }
      });
    }
    if (e.grKey === '/namespaces' && e.type === 'ADDED') work.enqueue(`root-ca/${name}`, () => publishRootCa(ops, credentials.caPem, name));
    if (e.grKey === '/configmaps' && e.type === 'DELETED' && name === 'kube-root-ca.crt')
      work.enqueue(`root-ca/${ns}`, () => publishRootCa(ops, credentials.caPem, ns));
  });
}

/** What the token controller signs with and hands out: the token issuer and the cluster CA (PEM). */
interface TokenCredentials {
  authn: TokenAuthenticator;
  caPem: string;
}

/** Fills a token Secret (token, ca.crt, namespace, the service account's uid), or deletes it when its service account is gone. */
function fillTokenSecret(ops: RestOps, credentials: TokenCredentials, secretRef: { namespace: string; name: string }): void {
  const { namespace, name } = secretRef;
  const secret = ops.store.get('/secrets', namespace, name);
  if (secret === undefined || secret['type'] !== tokenType || secret.metadata.deletionTimestamp !== undefined) return;
  const saName = secret.metadata.annotations?.[saNameAnnotation];
  if (saName === undefined) return;
  const sa = ops.store.get('/serviceaccounts', namespace, saName);
  const saUid = secret.metadata.annotations?.[saUidAnnotation];
  if (sa === undefined || (saUid !== undefined && saUid !== '' && saUid !== sa.metadata.uid)) {
    ops.store.remove('/secrets', namespace, name);
    return;
  }
  const data = isObject(secret['data']) ? secret['data'] : {};
  if (typeof data['token'] === 'string' && data['token'] !== '') return;
  const token = credentials.authn.issue(namespace, saName, sa.metadata.uid ?? '', { secretName: name });
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
  ops.writeThrough('/secrets', {
    ...secret,
    metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [saUidAnnotation]: sa.metadata.uid ?? '' } },
    data: { ...data, token: b64(token), 'ca.crt': b64(credentials.caPem), namespace: b64(namespace) },
  });
}

/** The root CA publisher: the `kube-root-ca.crt` ConfigMap in a live namespace that lacks it. */
function publishRootCa(ops: RestOps, caPem: string, namespace: string): void {
  const ns = ops.store.get('/namespaces', '', namespace);
  if (ns === undefined || ns.metadata.deletionTimestamp !== undefined) return;
  if (ops.store.get('/configmaps', namespace, 'kube-root-ca.crt') !== undefined) return;
  const def = ops.registry.byResource('', 'configmaps');
  if (def === undefined) return;
  ops.create(
    { def, version: def.versions[0]!, namespace },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'kube-root-ca.crt',
        namespace,
        annotations: {
          'kubernetes.io/description':
            'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
        },
      },
      data: { 'ca.crt': caPem },
    },
  );
}

/** `POST .../serviceaccounts/<name>/token`: an authentication.k8s.io/v1 TokenRequest with status.token. */
export function tokenRequest(
  ops: RestOps,
  authn: TokenAuthenticator,
  request: { namespace: string; name: string; body: unknown },
): JsonObject {
  const { namespace, name, body } = request;
  const sa = ops.store.get('/serviceaccounts', namespace, name);
  if (sa === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const b = isObject(body) ? body : {};
  if (b['kind'] !== undefined && b['kind'] !== 'TokenRequest')
    throw badRequest(`the kind in the data (${JSON.stringify(b['kind'])}) does not match the expected kind (TokenRequest)`);
  const spec = isObject(b['spec']) ? b['spec'] : {};
  const exp = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : 3600;
  // The request body is validated as sent, without a name (so the real message says "").
  if (exp < 600)
    throw invalid('TokenRequest', 'authentication.k8s.io', '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${exp}: may not specify a duration less than 10 minutes`,
        field: 'spec.expirationSeconds',
      },
    ]);
  const audiences =
    Array.isArray(spec['audiences']) && spec['audiences'].length > 0 ? spec['audiences'] : ['https://kubernetes.default.svc.cluster.local'];
  const expiresAt = Date.now() + exp * 1000;
  const token = authn.issue(namespace, name, sa.metadata.uid ?? '', { expiresAt });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    // kube-apiserver answers with the service account's uid and the time of the request.
    metadata: { name, namespace, uid: sa.metadata.uid ?? '', creationTimestamp: nowTimestamp(new Date()) },
    spec: { audiences, expirationSeconds: exp, boundObjectRef: spec['boundObjectRef'] ?? null },
    status: { token, expirationTimestamp: nowTimestamp(new Date(expiresAt)) },
  };
}
