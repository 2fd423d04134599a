/** Errors of the placement decisions; they extend `KubeFedError` (carries `cause`). */
import { KubeFedError } from '@kubefed/api';

/**
 * Placement could not be computed (an invalid cluster selector). The sync controller reports
 * the Propagation condition with reason `ComputePlacementFailed` and touches no member; the
 * scheduling controller reports the RSP as not scheduled.
 */
export class ComputePlacementError extends KubeFedError {}
