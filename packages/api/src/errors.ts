/**
 * The error taxonomy of `@kubefed/api`: one base class carrying `cause`, and subclasses that
 * name the failure.
 */
import { boundText, MAX_MESSAGE_CHARS } from './bounded-text.js';

/** Base class of every error thrown by KubeFed packages; carries an optional `cause`. */
export class KubeFedError extends Error {
  /** `message` is bounded to `MAX_MESSAGE_CHARS`: it may quote what a tenant or a member wrote. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(boundText(message, MAX_MESSAGE_CHARS), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** One problem found while validating an object: the field path and what is wrong with it. */
export interface ValidationIssue {
  /** Dotted field path with list indices, e.g. `spec.overrides[1].clusterOverrides[0].op`; `""` for the object itself. */
  readonly path: string;
  /** What is wrong, e.g. `must be one of add, remove, replace` or `Required value`. */
  readonly message: string;
}

/** Renders issues as `path: message` lines joined by `; `. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ');
}

/**
 * An object failed validation. `issues` lists every problem found (not only the first),
 * each with its field path.
 */
export class ValidationError extends KubeFedError {
  readonly issues: readonly ValidationIssue[];

  /** @param subject what was validated, e.g. `KubeFedCluster "c1"`. */
  constructor(subject: string, issues: readonly ValidationIssue[], options?: { cause?: unknown }) {
    super(`${subject} is invalid: ${formatIssues(issues)}`, options);
    this.issues = issues;
  }
}

/** A label selector (string form or LabelSelector object) could not be parsed or is invalid. */
export class LabelSelectorError extends KubeFedError {}
