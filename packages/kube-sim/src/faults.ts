/** The fault state of one cluster (see `SimCluster.faults`). */
export class FaultState {
  unreachable = false;
  /** Connections are accepted and nothing is answered (a stopped kube-apiserver); see {@link hold}. */
  hung = false;
  latencyMs = 0;
  failFraction = 0;
  failCode: 500 | 429 = 500;
  private held: (() => void)[] = [];

  /** While hung: keeps `work` (serving a new connection, answering a request) until {@link restore} runs it. */
  hold(work: () => void): void {
    this.held.push(work);
  }

  /** Clears every fault, then serves what was held while hung, in arrival order (as a stopped process does when continued). */
  restore(): void {
    this.unreachable = false;
    this.hung = false;
    this.latencyMs = 0;
    this.failFraction = 0;
    this.failCode = 500;
    const held = this.held;
    this.held = [];
    for (const work of held) work();
  }

  /** Forgets held work without running it (the cluster stops). */
  dropHeld(): void {
    this.held = [];
  }
}
