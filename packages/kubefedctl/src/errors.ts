import { KubeFedError } from '@kubefed/api';

/**
 * Base of every error kubefedctl reports itself. `hint` is one line telling the user what to
 * try next; the CLI prints it under the error (`hint: ...`).
 */
export class KubefedctlError extends KubeFedError {
  readonly hint: string | undefined;

  constructor(message: string, options: { cause?: unknown; hint?: string | undefined } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
  }
}

/** Bad command-line input (an invalid flag value or argument). Nothing was contacted. */
export class UsageError extends KubefedctlError {}

/** A kubeconfig or context problem found before any request was sent. */
export class ContextError extends KubefedctlError {}

/**
 * `join` failed at one step. `step` names it (e.g. `create service account ns/sa in member1`);
 * `rollbackFailures` lists what this run created but could not remove again.
 */
export class JoinStepError extends KubefedctlError {
  readonly step: string;
  readonly rollbackFailures: readonly string[];

  constructor(
    cluster: string,
    step: string,
    cause: unknown,
    options: { hint?: string | undefined; rollbackFailures?: readonly string[] } = {},
  ) {
    const failures = options.rollbackFailures ?? [];
    const rolledBack = failures.length === 0 ? '' : `; could not undo: ${failures.join('; ')}`;
    super(`join ${cluster}: step "${step}" failed: ${causeMessage(cause)}${rolledBack}`, { cause, hint: options.hint });
    this.step = step;
    this.rollbackFailures = failures;
  }
}

/** `join` refused because join artefacts already exist (and `--error-on-existing` is true). */
export class AlreadyJoinedError extends KubefedctlError {
  readonly existing: readonly string[];

  constructor(cluster: string, existing: readonly string[]) {
    super(`join ${cluster}: already exists: ${existing.join(', ')}`, {
      hint: `run "kubefedctl unjoin ${cluster}" first, or re-run join with --error-on-existing=false to update what exists and create what is missing`,
    });
    this.existing = existing;
  }
}

/**
 * `join` refused a second KubeFedCluster name for a member this host has already joined
 * (without `--allow-duplicate-endpoint`). Nothing was written.
 */
export class DuplicateEndpointError extends KubefedctlError {
  /** e.g. `KubeFedCluster kube-federation-system/member2`. */
  readonly joinedAs: readonly string[];

  constructor(cluster: string, endpoint: string, joinedAs: readonly string[]) {
    super(`join ${cluster}: the API endpoint ${endpoint} is already joined as ${joinedAs.join(', ')}; nothing was written`, {
      hint: 'keep using the existing name, or unjoin it first; to register the same cluster under a second name (with its own service account and token) pass --allow-duplicate-endpoint',
    });
    this.joinedAs = joinedAs;
  }
}

/** `unjoin` failed (the member was unreachable without `--force`, or a delete failed). */
export class UnjoinError extends KubefedctlError {}

/** `unjoin` of a name that has no KubeFedCluster in the host; nothing was removed. */
export class NotJoinedError extends UnjoinError {}

/** The message of any thrown value, on one line. */
export function causeMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}
