/**
 * The sync path's reporting side: the worker's outcomes go to the in-process `StatusRecorder`, and
 * the `StatusWriter` aggregates them (`../federated-status.ts`) into the federated object's status.
 */
export { StatusRecorder, type SyncOutcomeSink } from './status-recorder.js';
export { StatusWriter, type StatusWriterOptions } from './status-writer.js';
