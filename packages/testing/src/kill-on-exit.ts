import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Makes sure `child` never outlives the test process, whatever way that ends: it is killed with
 * SIGKILL on the parent's `exit` unless it has exited (or failed to spawn) before.
 */
export function killOnExit(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  const forget = (): void => void live.delete(child);
  child.once('exit', forget);
  child.once('error', forget);
}
