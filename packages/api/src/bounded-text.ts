/**
 * Bounds on the text we echo: anything a tenant or a member wrote that ends up in an error
 * message, a status, an event or a log line. A member's `Status.message`, an admission
 * webhook's denial or a JSON-pointer path in an override can be as long as an object allows
 * (megabytes); quoting them whole made one log line stall the process (docs/operations.md,
 * "Who can write what").
 */

/** The most characters of one echoed string: a Status message, a path, an error body. */
export const MAX_ECHOED_CHARS = 512;

/** The most characters of one error message, its echoed parts included. */
export const MAX_MESSAGE_CHARS = 2048;

/**
 * `text` itself when it has at most `max` characters, else its first `max` characters followed
 * by `… (N more characters)`. Never splits a surrogate pair.
 */
export function boundText(text: string, max: number = MAX_ECHOED_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}
