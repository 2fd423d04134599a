import { TestingError } from '../testing-error.js';

/**
 * KubeFed v0.10.0 could not be started or asked: a binary is missing (the message says to run
 * `npm run kubefed:build`), the controller manager exited or never became leader (the message
 * shows the tail of its log), or `kubefedctl` or the version oracle failed.
 */
export class KubeFedStartError extends TestingError {}
