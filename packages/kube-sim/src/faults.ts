/** The fault state of one cluster (see `SimCluster.faults`). */
export class FaultState {
  unreachable = false;
  latencyMs = 0;
  failFraction = 0;
  failCode: 500 | 429 = 500;

  /** Clears every fault. */
  restore(): void {
    this.unreachable = false;
    this.latencyMs = 0;
    this.failFraction = 0;
    this.failCode = 500;
  }
}
