/**
 * KubeFedCluster (core.kubefed.io/v1beta1): registers one member cluster (docs/kubefed-compatibility.md §1.1).
 */
import { z } from 'zod';
import { ClusterConditionType, ConditionStatus } from './constants.js';
import { objectMetaSchema } from './meta.js';
import {
  asArray,
  asRecord,
  childPath,
  describeObject,
  field,
  isDns1123Subdomain,
  type IssueCollector,
  unwrap,
  validateWith,
  type ValidationResult,
} from './validation.js';

/** Values allowed in `spec.disabledTLSValidations`. */
export const TLS_VALIDATIONS = ['*', 'SubjectName', 'ValidityPeriod'] as const;
export type TlsValidation = (typeof TLS_VALIDATIONS)[number];

/** KubeFedCluster `spec`. */
export const kubeFedClusterSpecSchema = z.object({
  /** Member API endpoint: host, host:port, IP, IP:port or URL (https assumed when no scheme). */
  apiEndpoint: z.string(),
  /** Base64 CA bundle used to verify the member API server. */
  caBundle: z.string().optional(),
  /** Secret in the kubefed namespace whose `token` key holds the bearer token. */
  secretRef: z.object({ name: z.string() }),
  /** TLS checks to skip: `*`, `SubjectName`, `ValidityPeriod`. */
  disabledTLSValidations: z.array(z.string()).optional(),
  /** Proxy for reaching the member (`http`, `https` or `socks5` URL); `""` = none. */
  proxyURL: z.string().optional(),
});
export type KubeFedClusterSpec = z.infer<typeof kubeFedClusterSpecSchema>;

/** One KubeFedCluster status condition (KubeFed's ClusterCondition). */
export const clusterConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  lastProbeTime: z.string(),
  lastTransitionTime: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type ClusterCondition = z.infer<typeof clusterConditionSchema>;

/** KubeFedCluster `status`, written by the cluster health controller. */
export const kubeFedClusterStatusSchema = z.object({
  conditions: z.array(clusterConditionSchema),
  kubernetesVersion: z.string().optional(),
  zones: z.array(z.string()).optional(),
  region: z.string().optional(),
});
export type KubeFedClusterStatus = z.infer<typeof kubeFedClusterStatusSchema>;

/** A KubeFedCluster object. Unknown `spec`/`status` fields are dropped as a structural CRD prunes them. */
export const kubeFedClusterSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: kubeFedClusterSpecSchema,
  status: kubeFedClusterStatusSchema.optional(),
});
export type KubeFedCluster = z.infer<typeof kubeFedClusterSchema>;

/** True iff the cluster has a condition of type `Ready` with status `True` (KubeFed's readiness predicate). */
export function isClusterReady(cluster: Pick<KubeFedCluster, 'status'>): boolean {
  return (cluster.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const SCHEME_PREFIX = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** The port text of `host[:port][/path]` (after removing any scheme), or undefined when none is given. */
function portOf(rest: string): string | undefined {
  const authority = (rest.split(/[/?#]/, 1)[0] ?? '').replace(/^.*@/, '');
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return end !== -1 && authority.charAt(end + 1) === ':' ? authority.slice(end + 2) : undefined;
  }
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? undefined : authority.slice(colon + 1);
}

/**
 * Problem with an `apiEndpoint` value, following client-go's host parsing: https is assumed when
 * no scheme is given, a scheme-less value with a path is rejected, the scheme must be http or
 * https and a given port must be 1–65535. `undefined` when valid.
 */
export function apiEndpointProblem(endpoint: string): string | undefined {
  if (endpoint === '') return 'Required value';
  const hasScheme = SCHEME_PREFIX.test(endpoint);
  const invalid = (detail: string): string => `Invalid value: ${JSON.stringify(endpoint)}: ${detail}`;
  const explicitPort = portOf(endpoint.replace(SCHEME_PREFIX, ''));
  if (explicitPort !== undefined) {
    const n = /^\d+$/.test(explicitPort) ? Number(explicitPort) : Number.NaN;
    if (!(n >= 1 && n <= 65535)) return invalid(`invalid port ${JSON.stringify(explicitPort)}: must be between 1 and 65535`);
  }
  let url: URL;
  try {
    url = new URL(hasScheme ? endpoint : `https://${endpoint}`);
  } catch {
    return invalid('host must be a URL or a host:port pair');
  }
  if (!hasScheme && url.pathname !== '/' && url.pathname !== '') {
    return invalid(`host must be a URL or a host:port pair: ${JSON.stringify(endpoint)}`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'http' && scheme !== 'https') return invalid(`scheme must be one of: [http, https]`);
  if (url.hostname === '') return invalid('host must be a URL or a host:port pair');
  return undefined;
}

/** Problem with a `proxyURL` value (`""` is valid = no proxy); `undefined` when valid. */
export function proxyUrlProblem(proxyURL: string): string | undefined {
  if (proxyURL === '') return undefined;
  const scheme = SCHEME_PREFIX.exec(proxyURL)?.[1]?.toLowerCase();
  let parsed = true;
  try {
    new URL(proxyURL);
  } catch {
    parsed = false;
  }
  if (!parsed || (scheme !== 'http' && scheme !== 'https' && scheme !== 'socks5')) {
    return `Invalid value: ${JSON.stringify(proxyURL)}: proxy URL scheme must be one of: [http, https, socks5]`;
  }
  return undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function checkSpec(spec: unknown, out: IssueCollector): void {
  const endpoint = field(spec, 'apiEndpoint');
  if (typeof endpoint === 'string') {
    const p = apiEndpointProblem(endpoint);
    if (p !== undefined) out.add('spec.apiEndpoint', p);
  }
  const ca = field(spec, 'caBundle');
  if (typeof ca === 'string' && !BASE64.test(ca)) out.add('spec.caBundle', 'must be base64-encoded data');
  const secretName = field(field(spec, 'secretRef'), 'name');
  if (typeof secretName === 'string') {
    if (secretName === '') out.add('spec.secretRef.name', 'Required value');
    else if (!isDns1123Subdomain(secretName))
      out.add(
        'spec.secretRef.name',
        `Invalid value: ${JSON.stringify(secretName)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      );
  }
  const tls = field(spec, 'disabledTLSValidations');
  if (Array.isArray(tls)) {
    tls.forEach((v, i) => {
      if (typeof v === 'string' && !(TLS_VALIDATIONS as readonly string[]).includes(v))
        out.add(`spec.disabledTLSValidations[${i}]`, `must be one of ${TLS_VALIDATIONS.join(', ')}`);
    });
    if (tls.includes('*') && tls.length > 1)
      out.add('spec.disabledTLSValidations', 'when * is specified, it is expected to be the only option in list');
  }
  const proxy = field(spec, 'proxyURL');
  if (typeof proxy === 'string') {
    const p = proxyUrlProblem(proxy);
    if (p !== undefined) out.add('spec.proxyURL', p);
  }
}

const CONDITION_TYPES = Object.values(ClusterConditionType) as string[];
const CONDITION_STATUSES = Object.values(ConditionStatus) as string[];

function checkStatus(status: unknown, out: IssueCollector): void {
  asArray(field(status, 'conditions')).forEach((c, i) => {
    const path = childPath('status.conditions', i);
    if (asRecord(c) === undefined) return;
    const type = field(c, 'type');
    if (typeof type === 'string' && !CONDITION_TYPES.includes(type))
      out.add(`${path}.type`, `must be one of ${CONDITION_TYPES.join(', ')}`);
    const st = field(c, 'status');
    if (typeof st === 'string' && !CONDITION_STATUSES.includes(st))
      out.add(`${path}.status`, `must be one of ${CONDITION_STATUSES.join(', ')}`);
    if (field(c, 'lastProbeTime') === '') out.add(`${path}.lastProbeTime`, 'Required value');
  });
}

/**
 * Validates a KubeFedCluster: its shape plus the admission rules of docs/kubefed-compatibility.md §6.2
 * (apiEndpoint, secretRef.name, disabledTLSValidations, proxyURL, caBundle; status conditions).
 * Reports every problem found.
 */
export function validateKubeFedCluster(obj: unknown): ValidationResult<KubeFedCluster> {
  return validateWith(kubeFedClusterSchema, obj, (raw, out) => {
    checkSpec(field(raw, 'spec'), out);
    checkStatus(field(raw, 'status'), out);
  });
}

/** Parses and validates a KubeFedCluster; throws a `ValidationError` listing every problem. */
export function parseKubeFedCluster(obj: unknown): KubeFedCluster {
  return unwrap(validateKubeFedCluster(obj), describeObject('KubeFedCluster', obj));
}
