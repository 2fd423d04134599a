/**
 * The sync path's reporting side: the `StatusWriter` of each federated type aggregates the
 * outcomes in the process's `StatusRecorder` (`../shared/`) with `../federated-status.ts` into
 * the federated objects' status.
 */
export { StatusWriter, type StatusWriterOptions } from './status-writer.js';
