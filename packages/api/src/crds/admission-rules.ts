/**
 * KubeFed's admission rules (its validating webhook, pkg/apis/core/v1beta1/validation/validation.go)
 * as CRD schema constraints and CEL `x-kubernetes-validations`, so that the API server itself
 * rejects an invalid KubeFedCluster, KubeFedConfig or FederatedTypeConfig. Every `matches` runs on
 * a string with a `maxLength`, which keeps the API server's CEL cost estimate small.
 * docs/user-guide.md ("Validation at admission") lists the rules; a table test runs the same cases
 * through the zod validators of this package, kube-sim and a real kube-apiserver.
 */
import { type JsonSchemaProps, type ValidationRule, withRules } from './openapi.js';

/** A CEL string literal holding `s` (backslashes and quotes escaped). */
function celString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A lowercase RFC 1123 subdomain (Kubernetes object names, API groups). */
const DNS1123_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A DNS-1035 label (versions, plural names). */
const DNS1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
/** A kind whose lowercase form is a DNS-1035 label. */
const KIND_PATTERN = '^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$';
/** A Go duration string as `time.ParseDuration` reads it (`20s`, `1m0s`, `1500ms`, `0`). */
const GO_DURATION_PATTERN = '^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';

const PORT = '0*(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';
const USERINFO = '([^@/?#\\s]*@)?';
const HOST = '([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+\\])';
/**
 * An API endpoint as client-go reads it: an http(s) URL, or a host, host:port, IP or IP:port
 * without a path (https is then assumed); a port is 1–65535.
 */
const API_ENDPOINT_PATTERN = `^(https?://${USERINFO}${HOST}(:${PORT})?([/?#].*)?|${USERINFO}${HOST}(:${PORT})?/?)$`;
/** Any URL scheme prefix (`foo://`). */
const URL_SCHEME_PATTERN = '^[A-Za-z][-A-Za-z0-9+.]*://';
/** A proxy URL: http, https or socks5 (any case) and a host. */
const PROXY_URL_PATTERN = '(?i)^(https?|socks5)://[^/?#\\s]+([/?#].*)?$';

/** A string rule: `self.matches(pattern)`. */
function matches(pattern: string): string {
  return `self.matches(${celString(pattern)})`;
}

/** A node with `maxLength` (needed to keep CEL `matches` cheap) and rules. */
function boundedString(maxLength: number, description: string, ...rules: ValidationRule[]): JsonSchemaProps {
  return withRules({ type: 'string', maxLength, description }, ...rules);
}

/**
 * A positive Go duration, with `def` as its default. The positivity rule is skipped for a string
 * that is no duration at all (the syntax rule reports it) so that CEL never fails to evaluate.
 */
export function positiveDuration(name: string, def: string): JsonSchemaProps {
  const valid = matches(GO_DURATION_PATTERN);
  return {
    ...boundedString(
      64,
      `A Go duration such as 20s, 1m0s or 1500ms; greater than 0. Default: ${def}.`,
      { rule: valid, message: `${name} must be a duration such as 20s, 1m0s or 1500ms` },
      { rule: `!${valid} || duration(self) > duration('0s')`, message: `${name} must be greater than 0` },
    ),
    default: def,
  };
}

/** CEL: the Go duration at `path` (relative to `self`) is valid (true when absent). */
function validDurationAt(path: string): string {
  return `has(self.${path}) && self.${path}.matches(${celString(GO_DURATION_PATTERN)})`;
}

/** CEL `n` copies of `duration(self.<path>)` added up (CEL durations cannot be multiplied). */
function durationTimes(path: string, n: number): string {
  return Array.from({ length: n }, () => `duration(self.${path})`).join(' + ');
}

/** Rules of `spec.leaderElect` across its fields (KubeFed's ValidateKubeFedConfig). */
export const LEADER_ELECT_RULES: readonly ValidationRule[] = [
  {
    rule: `!(${validDurationAt('leaseDuration')} && ${validDurationAt('renewDeadline')}) || duration(self.leaseDuration) > duration(self.renewDeadline)`,
    message: 'leaseDuration must be greater than renewDeadline',
    fieldPath: '.leaseDuration',
  },
  {
    // renewDeadline > retryPeriod * 1.2 (client-go's JitterFactor), as 5 × renewDeadline > 6 × retryPeriod.
    rule: `!(${validDurationAt('renewDeadline')} && ${validDurationAt('retryPeriod')}) || ${durationTimes('renewDeadline', 5)} > ${durationTimes('retryPeriod', 6)}`,
    message: 'renewDeadline must be greater than retryPeriod*JitterFactor(1.2)',
    fieldPath: '.renewDeadline',
  },
];

/** Rule of `spec.featureGates`: no gate is listed twice. */
export const UNIQUE_FEATURE_GATES_RULE: ValidationRule = {
  rule: 'self.all(g, self.exists_one(h, h.name == g.name))',
  message: 'each feature gate may be listed once',
};

/** Rule of KubeFedConfig `spec.scope`: it never changes. */
export const IMMUTABLE_SCOPE_RULE: ValidationRule = { rule: 'self == oldSelf', message: 'scope is immutable' };

/** KubeFedCluster `spec.apiEndpoint`. */
export const apiEndpointProps = (): JsonSchemaProps =>
  boundedString(
    2048,
    'API endpoint of the member cluster: an http(s) URL, or a host, host:port, IP or IP:port (https assumed).',
    { rule: "self != ''", reason: 'FieldValueRequired', message: 'apiEndpoint is required' },
    {
      rule: `!self.matches(${celString(URL_SCHEME_PATTERN)}) || self.matches('^https?://')`,
      message: 'apiEndpoint scheme must be one of: [http, https]',
    },
    {
      rule: `self == '' || !self.matches('^https?://') && self.matches(${celString(URL_SCHEME_PATTERN)}) || ${matches(API_ENDPOINT_PATTERN)}`,
      message: 'apiEndpoint must be a URL or a host:port pair (no path without a scheme), with a port of 1-65535',
    },
  );

/** KubeFedCluster `spec.secretRef.name`. */
export const secretNameProps = (): JsonSchemaProps =>
  boundedString(
    253,
    'Name of the Secret in the KubeFed namespace whose `token` key holds the bearer token.',
    { rule: "self != ''", reason: 'FieldValueRequired', message: 'secretRef.name is required' },
    {
      rule: `self == '' || ${matches(DNS1123_SUBDOMAIN_PATTERN)}`,
      message:
        "secretRef.name must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character",
    },
  );

/** Rule of KubeFedCluster `spec.disabledTLSValidations`. */
export const ONLY_WILDCARD_TLS_RULE: ValidationRule = {
  rule: "!('*' in self) || self.size() == 1",
  message: 'when * is specified, it is expected to be the only option in list',
};

/** KubeFedCluster `spec.proxyURL`. */
export const proxyUrlProps = (): JsonSchemaProps =>
  boundedString(2048, 'Proxy URL (http, https or socks5) used to reach the member; empty for none.', {
    rule: `self == '' || ${matches(PROXY_URL_PATTERN)}`,
    message: 'proxy URL scheme must be one of: [http, https, socks5]',
  });

/** FederatedTypeConfig APIResource `group` (DNS-1123 subdomain when set). */
export const apiGroupProps = (): JsonSchemaProps =>
  boundedString(253, 'Group of the resource; empty for the core group.', {
    rule: `self == '' || ${matches(DNS1123_SUBDOMAIN_PATTERN)}`,
    message: 'group must be empty or a lowercase RFC 1123 subdomain (e.g. apps or types.kubefed.io)',
  });

/** FederatedTypeConfig APIResource `version` / `pluralName`: a DNS-1035 label. */
export const dns1035Props = (field: string, example: string, description: string): JsonSchemaProps =>
  boundedString(63, description, {
    rule: matches(DNS1035_LABEL_PATTERN),
    message: `${field} must be a DNS-1035 label: lower case alphanumeric characters or '-', starting with a letter and ending with an alphanumeric character (e.g. ${example})`,
  });

/** FederatedTypeConfig APIResource `kind`. */
export const kindProps = (): JsonSchemaProps =>
  boundedString(63, 'Camel-cased singular name of the resource (e.g. ConfigMap).', {
    rule: matches(KIND_PATTERN),
    message:
      "kind must be a name whose lowercase form is a DNS-1035 label: letters, digits or '-', starting with a letter (e.g. ConfigMap)",
  });

/** Rules of the federated and status APIResources of a FederatedTypeConfig: their group is a domain. */
export const FEDERATED_GROUP_RULES: readonly ValidationRule[] = [
  {
    rule: "has(self.group) && self.group != ''",
    reason: 'FieldValueRequired',
    message: 'group is required for a federated type',
    fieldPath: '.group',
  },
  {
    rule: "!has(self.group) || self.group == '' || self.group.contains('.')",
    message: 'group should be a domain with at least one dot',
    fieldPath: '.group',
  },
];

/** Rule at the root of a FederatedTypeConfig: its name is GroupQualifiedName(targetType). */
export const FTC_NAME_RULE: ValidationRule = {
  rule: "self.metadata.name == (has(self.spec.targetType.group) && self.spec.targetType.group != '' ? self.spec.targetType.pluralName + '.' + self.spec.targetType.group : self.spec.targetType.pluralName)",
  message:
    "name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)': the target type's pluralName, then a dot and its group unless that is empty",
  fieldPath: '.metadata.name',
};
