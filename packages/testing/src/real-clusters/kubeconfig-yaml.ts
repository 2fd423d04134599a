/** A JSON value, as a kubeconfig holds. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * YAML block text for a JSON value, as kubectl writes kubeconfigs (mappings and sequences in
 * block style). Scalars are written as JSON, which YAML reads back unchanged, so no quoting rule
 * can go wrong; empty mappings and sequences are `{}` and `[]`.
 */
export function kubeconfigYaml(value: JsonValue): string {
  return `${block(value, '').join('\n')}\n`;
}

function block(value: JsonValue, indent: string): string[] {
  if (Array.isArray(value)) {
    const items = value as readonly JsonValue[];
    return items.flatMap((item) => {
      const [first = '', ...rest] = isNested(item) ? block(item, `${indent}  `).map((l) => l.slice(indent.length + 2)) : [scalar(item)];
      return [`${indent}- ${first}`, ...rest.map((l) => `${indent}  ${l}`)];
    });
  }
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, v]) =>
      isNested(v) ? [`${indent}${mappingKey(key)}:`, ...block(v, `${indent}  `)] : [`${indent}${mappingKey(key)}: ${scalar(v)}`],
    );
  }
  return [`${indent}${scalar(value)}`];
}

function isObject(value: JsonValue): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty mapping or sequence: written as a block. */
function isNested(value: JsonValue): boolean {
  return Array.isArray(value) ? value.length > 0 : isObject(value) && Object.keys(value).length > 0;
}

function scalar(value: JsonValue): string {
  if (Array.isArray(value)) return '[]';
  if (isObject(value)) return '{}';
  return JSON.stringify(value);
}

function mappingKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key) ? key : JSON.stringify(key);
}
