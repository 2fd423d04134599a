import type { JsonObject } from './json.js';

/** One cause of an Invalid (422) Status, as in `details.causes[]`. */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

/** `details` of a Status object. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The base error of the simulator: carries an optional cause. */
export class KubeSimError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A failed API request, rendered as a `v1 Status` with `status: Failure`.
 * `reason` and `code` follow the Kubernetes API conventions (NotFound/404, Conflict/409 ...).
 */
export class StatusError extends KubeSimError {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  /** The Status object sent as the response body. */
  toStatus(): JsonObject {
    const s: JsonObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message };
    if (this.reason !== '') s['reason'] = this.reason;
    if (this.details !== undefined) s['details'] = this.details;
    s['code'] = this.code;
    return s;
  }
}

/** A group-qualified resource as used in Status messages (`deployments.apps`, `configmaps`). */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(gr: QualifiedResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

function details(gr: QualifiedResource, name: string): StatusDetails {
  const d: StatusDetails = { name };
  if (gr.group !== '') d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

/** 404 `<resource> "<name>" not found`. */
export function notFound(gr: QualifiedResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, details(gr, name));
}

/** 404 for a path the server does not serve. */
export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 409 AlreadyExists. */
export function alreadyExists(gr: QualifiedResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, details(gr, name));
}

/** 409 Conflict (optimistic concurrency or precondition failure). */
export function conflict(gr: QualifiedResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, details(gr, name));
}

/** The standard optimistic-concurrency conflict message. */
export const modifiedMessage = 'the object has been modified; please apply your changes to the latest version and try again';

/** 403 Forbidden. */
export function forbidden(gr: QualifiedResource, name: string, why: string): StatusError {
  const subject = name === '' ? qualified(gr) : `${qualified(gr)} "${name}"`;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details(gr, name));
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** 422 Invalid with field causes: `<Kind> "<name>" is invalid: <field>: <message>, ...`. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): StatusError {
  const summary = causes.map((c) => (c.field !== undefined && c.field !== '' ? `${c.field}: ${c.message}` : c.message));
  const text = summary.length === 1 ? summary[0]! : `[${summary.join(', ')}]`;
  const d: StatusDetails = {};
  if (name !== '') d.name = name;
  if (group !== '') d.group = group;
  d.kind = kind;
  d.causes = causes;
  const subject = group === '' ? kind : `${kind}.${group}`;
  return new StatusError(422, 'Invalid', `${subject} "${name}" is invalid: ${text}`, d);
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** 410 Gone for an expired resourceVersion. */
export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** 500 InternalError. */
export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ reason: '', message }],
  });
}
