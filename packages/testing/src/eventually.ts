import { setTimeout as sleep } from 'node:timers/promises';
import { ConsistentlyError, EventuallyTimeoutError } from './testing-error.js';

/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** Give up after this many ms. Default 5000. */
  timeoutMs?: number;
  /** Wait this long between attempts. Default 50. */
  intervalMs?: number;
  /** Prefix of the error message when the condition never held. Default `condition did not hold`. */
  message?: string;
}

/**
 * Calls `check` until it returns without throwing (a returned promise must resolve), then
 * returns its value. Usable outside vitest (scripts, the demo). Each attempt counts against
 * the deadline; an attempt still running at the deadline is awaited once more.
 *
 * @throws EventuallyTimeoutError after `timeoutMs`, naming `message` and the last failure
 *   (also attached as `cause`).
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  const detail = lastError instanceof Error ? lastError.message : String(lastError);
  throw new EventuallyTimeoutError(`${options.message ?? 'condition did not hold'} within ${timeoutMs}ms: ${detail}`, {
    cause: lastError,
  });
}

/** Options of {@link consistently}. */
export interface ConsistentlyOptions {
  /** How long the condition must keep holding. Default 500. */
  durationMs?: number;
  /** Wait this long between checks. Default 50. */
  intervalMs?: number;
  /** Prefix of the error message. Default `condition stopped holding`. */
  message?: string;
}

/**
 * Checks that `check` keeps returning without throwing for a fixed window ("stays true"
 * assertions: nothing was written, a job was not retried).
 *
 * @throws ConsistentlyError at the first failing check, with that failure as `cause`.
 */
export async function consistently(check: () => unknown, options: ConsistentlyOptions = {}): Promise<void> {
  const durationMs = options.durationMs ?? 500;
  const intervalMs = options.intervalMs ?? 50;
  const start = Date.now();
  for (;;) {
    try {
      await check();
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new ConsistentlyError(`${options.message ?? 'condition stopped holding'} after ${Date.now() - start}ms: ${detail}`, {
        cause: err,
      });
    }
    if (Date.now() - start >= durationMs) return;
    await sleep(intervalMs);
  }
}
