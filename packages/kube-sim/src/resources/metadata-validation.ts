import type { StatusCause } from '../util/status-error.js';
import type { ObjectMeta } from '../util/json.js';

/**
 * The label, annotation and data-key rules of apimachinery's validation package, with its
 * messages (`IsQualifiedName`, `IsValidLabelValue`, `IsConfigMapKey`), which kube-apiserver
 * applies to every object (labels, annotations) and to ConfigMaps and Secrets (keys).
 */

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const qualifiedNameMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const labelValue = new RegExp(`^${labelValueFmt}$`);
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const configKeyFmt = '[-._a-zA-Z0-9]+';
const configKey = new RegExp(`^${configKeyFmt}$`);
const configKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
/** TotalAnnotationSizeLimitB: keys plus values. */
const maxAnnotationBytes = 256 * 1024;

/** apimachinery's RegexError: the message, examples quoted with two spaces between, and the regex. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const e = examples.length === 0 ? '' : `(e.g. ${examples.map((x) => `'${x}'`).join(',  or ')}, `;
  return `${msg} ${e === '' ? '(' : e}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number): string => `must be no more than ${n} characters`;

/** IsQualifiedName: `[prefix/]name`, the prefix a DNS-1123 subdomain, the name at most 63 characters. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push(`prefix part ${maxLen(253)}`);
      if (!dns1123Subdomain.test(prefix)) errs.push(`prefix part ${regexError(dns1123SubdomainMsg, dns1123SubdomainFmt, 'example.com')}`);
    }
  } else
    return [
      `a qualified name ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!qualifiedName.test(name)) errs.push(`name part ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsValidLabelValue: empty, or at most 63 characters of the label alphabet. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!labelValue.test(value)) errs.push(regexError(labelValueMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** IsConfigMapKey: the keys of ConfigMap data/binaryData and Secret data. */
export function configKeyErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!configKey.test(value)) errs.push(regexError(configKeyMsg, configKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const invalidCause = (field: string, value: string, msg: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${msg}`,
  field,
});

/** ValidateLabels and ValidateAnnotations of an object's metadata. */
export function metadataCauses(meta: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    for (const msg of qualifiedNameErrors(k)) causes.push(invalidCause('metadata.labels', k, msg));
    for (const msg of labelValueErrors(String(v))) causes.push(invalidCause('metadata.labels', String(v), msg));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    // Annotation keys are qualified names whatever their case.
    for (const msg of qualifiedNameErrors(k.toLowerCase())) causes.push(invalidCause('metadata.annotations', k, msg));
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (annotationBytes > maxAnnotationBytes)
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${maxAnnotationBytes} bytes`,
      field: 'metadata.annotations',
    });
  return causes;
}

/** The key rules of a ConfigMap's data and binaryData (and their overlap), or of a Secret's data. */
export function dataKeyCauses(obj: Record<string, unknown>, configMap: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const keys = (field: string): string[] => {
    const v = obj[field];
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : [];
  };
  const binary = new Set(configMap ? keys('binaryData') : []);
  for (const k of keys('data')) {
    for (const msg of configKeyErrors(k)) causes.push(invalidCause(`data[${k}]`, k, msg));
    if (binary.has(k)) causes.push(invalidCause(`data[${k}]`, k, 'duplicate of key present in binaryData'));
  }
  for (const k of binary) for (const msg of configKeyErrors(k)) causes.push(invalidCause(`binaryData[${k}]`, k, msg));
  return causes;
}
