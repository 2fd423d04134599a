import { KubeFedError } from '@kubefed/api';

/** A test environment could not be started or stopped (Redis, simulated clusters, a poll that timed out). */
export class TestingError extends KubeFedError {}

/** `redis-server` could not be started (not installed, exited early, never answered PING). */
export class RedisStartError extends TestingError {}

/** {@link eventually} gave up: the condition never held within its timeout. `cause` is the last failure. */
export class EventuallyTimeoutError extends TestingError {}

/** {@link consistently} saw the condition fail inside its window. `cause` is the failure. */
export class ConsistentlyError extends TestingError {}
