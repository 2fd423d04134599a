/**
 * JSON exactly as Go's `encoding/json` Encoder writes it for generic values, which KubeFed
 * hashes for version tracking (docs/kubefed-compatibility.md §4.4.8): map keys sorted by their UTF-8 bytes,
 * `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` …, other control characters as `\u00XX`
 * (except `\n`, `\r`, `\t`), numbers in Go's shortest form, no whitespace.
 */

const HEX = '0123456789abcdef';

function escapeChar(code: number): string {
  return `\\u${HEX[(code >> 12) & 0xf]}${HEX[(code >> 8) & 0xf]}${HEX[(code >> 4) & 0xf]}${HEX[code & 0xf]}`;
}

/** A string literal as Go writes it (HTML-safe escaping; lone surrogates become `\ufffd`). */
function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += '\\\\';
    else if (code === 0x0a) out += '\\n';
    else if (code === 0x0d) out += '\\r';
    else if (code === 0x09) out += '\\t';
    else if (code < 0x20 || code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029) out += escapeChar(code);
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += s.slice(i, i + 2);
        i++;
      } else out += '\\ufffd';
    } else if (code >= 0xdc00 && code <= 0xdfff) out += '\\ufffd';
    else out += s.charAt(i);
  }
  return `${out}"`;
}

const utf8Compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * Encodes a JSON value like Go's `json.Marshal` of a `map[string]interface{}` tree. Object
 * properties whose value is `undefined` are skipped (they do not exist in JSON).
 *
 * @throws TypeError for values JSON cannot hold (non-finite numbers, functions, bigints).
 */
export function goJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot encode ${value} as JSON`);
      // JavaScript and Go switch to exponent form at the same bounds (1e-6, 1e21) and both
      // print the shortest representation that round-trips.
      return String(value);
    case 'string':
      return goJsonString(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v: unknown) => goJson(v ?? null)).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => utf8Compare(a, b));
      return `{${entries.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`cannot encode a ${typeof value} as JSON`);
  }
}
