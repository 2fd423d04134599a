/**
 * `scheme://user:password@`: the password may hold `@` and `:`; it ends at the last `@` before a
 * delimiter. The scheme starts where a run of scheme characters starts (the lookbehind), never
 * inside one: a pattern that may start at every word boundary rescans the rest of the run from
 * each, which is quadratic in a run such as `a.a.a.…` (a tenant's override path, a member's error
 * message). Every other part of the match stops at a character the next `://` must contain, so
 * the work is linear in the length of the text.
 */
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z0-9+.-]+:\/\/[^\s/?#@:"\\]*):((?:[^\s/?#"\\]|\\.)*)@/gi;

/**
 * The name of a query parameter (`?name=`, `&name=`). The name's run ends at `=` or at a
 * character no name holds, and the next parameter starts after that, so matching is linear.
 */
const QUERY_PARAM_NAME = /[?&]([a-z0-9_.-]*)=/gi;

/** A query parameter value: everything up to the next parameter, fragment, blank or quote. */
const QUERY_PARAM_VALUE = /[^&#\s"\\]*/y;

/** Parameter names whose values are secrets: `password`, `sentinelPassword`, `access_token`, `client_secret`. */
const SECRET_NAME = /pass|secret|token/i;

/** `Authorization: Basic …`, `proxy-authorization=Bearer …`, also inside a JSON text (`\"`). */
const AUTHORIZATION_VALUE = /\b((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?)(?:(?:basic|bearer|digest|negotiate)\s+)?[^\s"'\\,;]+/gi;

/**
 * Masks the credentials that a URL or a quoted HTTP header can carry anywhere in `text`: the
 * password of `scheme://user:password@host` (→ `user:***@`), secret query parameters
 * (`?password=***`), and `Authorization` / `Proxy-Authorization` values (→ `[Redacted]`).
 * Everything else, the host and user name included, is kept. Works on plain text and on JSON
 * text alike, so a logger can apply it to whole log lines; its time is linear in the length of
 * `text`, whatever the text holds.
 */
export function redactCredentials(text: string): string {
  const withoutPasswords = text.replace(URL_PASSWORD, (match, prefix: string, password: string) =>
    password === '' ? match : `${prefix}:***@`,
  );
  return redactSecretQueryParams(withoutPasswords).replace(AUTHORIZATION_VALUE, '$1[Redacted]');
}

/** `?password=pw&x=1` → `?password=***&x=1`, for every parameter whose name holds pass, secret or token. */
function redactSecretQueryParams(text: string): string {
  let out = '';
  let copied = 0;
  const names = new RegExp(QUERY_PARAM_NAME.source, QUERY_PARAM_NAME.flags);
  const value = new RegExp(QUERY_PARAM_VALUE.source, QUERY_PARAM_VALUE.flags);
  for (let m = names.exec(text); m !== null; m = names.exec(text)) {
    if (!SECRET_NAME.test(m[1] ?? '')) continue;
    const valueStart = m.index + m[0].length;
    value.lastIndex = valueStart;
    const valueEnd = valueStart + (value.exec(text)?.[0].length ?? 0);
    out += `${text.slice(copied, valueStart)}***`;
    copied = valueEnd;
    names.lastIndex = valueEnd;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
