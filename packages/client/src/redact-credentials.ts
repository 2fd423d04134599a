/** `scheme://user:password@`: the password may hold `@` and `:`; it ends at the last `@` before a delimiter. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"\\]*):((?:[^\s/?#"\\]|\\.)*)@/gi;

/** `?password=…`, `&sentinelPassword=…`, `?access_token=…`, `?client_secret=…` in a query string. */
const SECRET_QUERY_PARAM = /([?&][a-z0-9_.-]*(?:pass|secret|token)[a-z0-9_.-]*=)[^&#\s"\\]*/gi;

/** `Authorization: Basic …`, `proxy-authorization=Bearer …`, also inside a JSON text (`\"`). */
const AUTHORIZATION_VALUE = /\b((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?)(?:(?:basic|bearer|digest|negotiate)\s+)?[^\s"'\\,;]+/gi;

/**
 * Masks the credentials that a URL or a quoted HTTP header can carry anywhere in `text`: the
 * password of `scheme://user:password@host` (→ `user:***@`), secret query parameters
 * (`?password=***`), and `Authorization` / `Proxy-Authorization` values (→ `[Redacted]`).
 * Everything else, the host and user name included, is kept. Works on plain text and on JSON
 * text alike, so a logger can apply it to whole log lines.
 */
export function redactCredentials(text: string): string {
  return text
    .replace(URL_PASSWORD, (_m, prefix: string, password: string) => (password === '' ? _m : `${prefix}:***@`))
    .replace(SECRET_QUERY_PARAM, '$1***')
    .replace(AUTHORIZATION_VALUE, '$1[Redacted]');
}
