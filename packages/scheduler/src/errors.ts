/**
 * Base class of every error thrown by `@kubefed/scheduler`. Carries the underlying `cause`
 * when there is one.
 */
export class SchedulerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * An input of the planner or of the pod analysis is not usable: a number that is not a safe
 * integer (KubeFed's fields are int32/int64), or pods missing where the analysis needs them.
 * `field` is the path of the offending value, e.g. `clusters["a"].weight`.
 */
export class InvalidPlanInputError extends SchedulerError {
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super(`${field}: ${message}`, options);
    this.field = field;
  }
}

/**
 * The weighted distribution did not settle within its round limit. Only reachable with
 * inputs KubeFed's API never produces in practice (negative weights), where KubeFed itself
 * would spin on int64 overflow.
 */
export class PlanNotConvergingError extends SchedulerError {
  readonly rounds: number;

  constructor(key: string, rounds: number) {
    super(`replica plan for "${key}" did not converge after ${String(rounds)} rounds`);
    this.rounds = rounds;
  }
}
