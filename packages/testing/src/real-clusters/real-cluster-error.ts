import { TestingError } from '../testing-error.js';

/**
 * A real cluster could not be started: a binary is missing (the message says to run
 * `npm run kube:build`), a component exited or never became ready (the message names the
 * component and shows the tail of its log), or a readiness wait timed out.
 */
export class RealClusterStartError extends TestingError {}
