import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { StatusError, badRequest } from '../util/status-error.js';

/** Largest request body accepted (kube-apiserver's limit is 3 MiB). */
const maxBodyBytes = 3 * 1024 * 1024;

/** Reads the whole request body. 413 when larger than {@link maxBodyBytes}. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) throw new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Parses a JSON (or YAML, for YAML media types) body; 400 on malformed input. */
export function parseBody(buf: Buffer, contentType: string): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    if (contentType.includes('yaml')) return parseYaml(text) as unknown;
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`error decoding request body: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** One media range of an Accept header with its parameters. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** Parses an Accept header into media ranges in order. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';');
    const p: Record<string, string> = {};
    for (const kv of params) {
      const i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
    }
    return { type: (type ?? '').trim().toLowerCase(), params: p };
  });
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}, raw?: string): void {
  const text = raw ?? JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    ...headers,
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Writes a Status error. */
export function sendStatus(res: ServerResponse, err: StatusError, headers: Record<string, string> = {}): void {
  sendJson(res, err.code, err.toStatus(), headers);
}
