import { ApiError, KubeFedClientError, type RequestDescription } from './api-error.js';
import { type HttpTransport, readLimitedBody, type TransportRequest } from './http-transport.js';
import type { KubeObject, WatchEvent, WatchEventType } from './types.js';

/** Read through a function so TypeScript does not narrow `aborted` across awaits. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const eventTypes = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

const NEWLINE = 0x0a;

function parseEvent(line: string, description: RequestDescription): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (e) {
    throw new KubeFedClientError(`watch ${description.resource ?? ''}: malformed event line: ${line.slice(0, 200)}`, { cause: e });
  }
  const ev = parsed as { type?: unknown; object?: unknown };
  if (typeof ev.type !== 'string' || !eventTypes.has(ev.type) || typeof ev.object !== 'object' || ev.object === null) {
    throw new KubeFedClientError(`watch ${description.resource ?? ''}: unexpected event: ${line.slice(0, 200)}`);
  }
  const object = ev.object as KubeObject;
  if (ev.type === 'ERROR') {
    const code = typeof object.code === 'number' ? object.code : 500;
    throw ApiError.fromResponse({ code, body: JSON.stringify(object), request: description });
  }
  return { type: ev.type as WatchEventType, object };
}

/**
 * Streams newline-delimited watch events. Ends when the server closes the stream or `signal`
 * aborts (no error in that case). Throws {@link ApiError} for a non-200 response or an `ERROR`
 * event (e.g. reason Gone when the resourceVersion is too old), `NetworkError` when the
 * connection breaks mid-stream, `ResponseTooLarge` (and closes the stream) as soon as one event
 * passes the transport's `maxWatchEventBytes`. Breaking out of the loop closes the connection.
 */
export async function* watchStream(
  transport: HttpTransport,
  request: TransportRequest,
  signal: AbortSignal | undefined,
  idleTimeoutMs?: number,
): AsyncGenerator<WatchEvent, void, undefined> {
  if (aborted(signal)) return;
  let opened: Awaited<ReturnType<HttpTransport['stream']>>;
  try {
    opened = await transport.stream(request);
  } catch (e) {
    if (aborted(signal)) return;
    throw e;
  }
  const { res, close } = opened;
  // A silently dead connection never ends a stream: give up when nothing arrives for too long.
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    if (idleTimeoutMs === undefined || idleTimeoutMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      res.body.destroy(new Error('watch idle timeout'));
    }, idleTimeoutMs);
  };
  arm();
  try {
    if (res.status !== 200) {
      const body = await readLimitedBody(res, transport.maxResponseBytes, request.description);
      throw ApiError.fromResponse({
        code: res.status,
        body: body.toString('utf8'),
        retryAfter: res.headers['retry-after'],
        request: request.description,
      });
    }
    // Split on the newline byte (it never occurs inside a multi-byte UTF-8 sequence), keeping
    // the pieces of the unfinished line and their size, so a line is copied once and is capped.
    const limit = transport.maxWatchEventBytes;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const data of res.body) {
      arm();
      const chunk = data as Buffer;
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, nl);
        start = nl + 1;
        if (pendingBytes + piece.length > limit) throw ApiError.responseTooLarge('watch event', limit, request.description);
        const line = (pending.length === 0 ? piece : Buffer.concat([...pending, piece])).toString('utf8').trim();
        pending = [];
        pendingBytes = 0;
        if (line !== '') yield parseEvent(line, request.description);
      }
      if (start < chunk.length) {
        pendingBytes += chunk.length - start;
        if (pendingBytes > limit) throw ApiError.responseTooLarge('watch event', limit, request.description);
        pending.push(chunk.subarray(start));
      }
    }
    const rest = Buffer.concat(pending).toString('utf8').trim();
    if (rest !== '') yield parseEvent(rest, request.description);
  } catch (e) {
    if (aborted(signal)) return;
    if (idle && idleTimeoutMs !== undefined) throw ApiError.timeout(idleTimeoutMs, request.description);
    if (e instanceof KubeFedClientError) throw e;
    throw ApiError.fromNetworkError(e, request.description);
  } finally {
    clearTimeout(timer);
    close();
  }
}
