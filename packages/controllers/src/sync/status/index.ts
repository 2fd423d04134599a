/**
 * The sync path's reporting side: the worker's outcomes go to the in-process `StatusRecorder`, and
 * the `StatusWriter` aggregates them (`../federated-status.ts`) into the federated object's status.
 */
export { type StaleOutcomeReason, StatusRecorder, type StatusRecorderOptions, type SyncOutcomeSink } from './status-recorder.js';
export { StatusWriter, type StatusWriterOptions } from './status-writer.js';
