/** Errors of the ReplicaSchedulingPreference controller; all extend `KubeFedError` (carries `cause`). */
import { KubeFedError } from '@kubefed/api';

/** Base class of the replica scheduling controller's errors. */
export class ReplicaSchedulingError extends KubeFedError {}

/** The RSP cannot be scheduled as written (bad spec, unsupported targetKind, invalid plan input); not retried. */
export class InvalidSchedulingPreferenceError extends ReplicaSchedulingError {}

/** A member workload needs pod analysis but has no `spec.selector.matchLabels`. */
export class MissingSelectorError extends ReplicaSchedulingError {}
