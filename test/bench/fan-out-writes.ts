// The writes of the outage benchmark's control phase (`member-outage.bench.ts --control`), made
// in a process of their own: their requests, JSON and garbage never hold the benchmark's event
// loop, which times the healthy members' changes, as the controller manager's fan-out holds only
// its own process.
//
// The parent starts this file with an IPC channel (`FanOutWriterProcess.start`); the child lists the objects, then
// writes when told to (`{ do: 'write' }`), and removes its entries when told to
// (`{ do: 'undo' }`) and exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '@kubefed/api';
import { DynamicClient, isConflict, Kubeconfig, type KubeObject } from '@kubefed/client';
import { BackgroundEventSink, EventRecorder, withoutManagedFields } from '@kubefed/runtime';
import { sourceEntry } from '@kubefed/testing';
import { FEDERATED_CONFIG_MAPS } from '../../packages/controller-manager/test/process-federation.js';

/** What the child reports once its writes are done. */
export interface FanOutWritten {
  /** When every write was done, on the parent's `performance.now()` clock. */
  readonly doneAt: number;
  /** Events written (the rest were dropped by the bounded queue). */
  readonly eventsWritten: number;
  /** CPU seconds the child used for the writes. */
  readonly cpuSeconds: number;
}

type Request = { readonly do: 'write' } | { readonly do: 'undo' };
type Report =
  | { readonly ready: number }
  | { readonly written: { readonly doneAtEpochMs: number; readonly eventsWritten: number; readonly cpuSeconds: number } }
  | { readonly undone: true }
  | { readonly failed: string };

/** The parent's handle on a child process running {@link FanOutWrites}. */
export class FanOutWriterProcess {
  readonly #child: ChildProcess;
  readonly #reports: Report[] = [];
  #waiting: (() => void) | undefined;
  #exit: string | undefined;
  #objects = 0;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (report: Report) => {
      this.#reports.push(report);
      this.#wake();
    });
    child.on('exit', (code, signal) => {
      this.#exit = `the control's writer exited (${signal ?? `code ${String(code)}`})`;
      this.#wake();
    });
  }

  /**
   * Starts the child for the FederatedConfigMaps of `namespace` in the kubeconfig's `host` context;
   * resolves once it listed them. `rate`: status writes a second (0: one after the other, as fast
   * as the host answers, as the controller manager's status writer makes a fan-out's).
   */
  static async start(kubeconfigPath: string, namespace: string, rate = 0): Promise<FanOutWriterProcess> {
    const writer = new FanOutWriterProcess(
      spawn(process.execPath, [...sourceEntry(fileURLToPath(import.meta.url)), kubeconfigPath, namespace, String(rate)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const ready = await writer.#next();
    if (!('ready' in ready)) throw new Error(`the control's writer did not start: ${JSON.stringify(ready)}`);
    writer.#objects = ready.ready;
    return writer;
  }

  /** The FederatedConfigMaps the child writes. */
  get objects(): number {
    return this.#objects;
  }

  /** Makes the writes; resolves when they are done. */
  async write(): Promise<FanOutWritten> {
    const report = await this.#ask({ do: 'write' });
    if (!('written' in report))
      throw new Error(`the control's writes failed: ${'failed' in report ? report.failed : JSON.stringify(report)}`);
    const { doneAtEpochMs, eventsWritten, cpuSeconds } = report.written;
    return { doneAt: doneAtEpochMs - performance.timeOrigin, eventsWritten, cpuSeconds };
  }

  /** Removes the entries written (also after a failed write) and waits for the child to exit. */
  async undo(): Promise<void> {
    if (this.#exit !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    const report = await this.#ask({ do: 'undo' });
    if (!('undone' in report)) throw new Error(`the control's entries were not removed: ${JSON.stringify(report)}`);
    await exited;
  }

  async #ask(request: Request): Promise<Report> {
    if (this.#exit !== undefined) throw new Error(this.#exit);
    this.#child.send(request);
    return this.#next();
  }

  async #next(): Promise<Report> {
    while (this.#reports.length === 0) {
      if (this.#exit !== undefined) throw new Error(this.#exit);
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
    return this.#reports.shift() as Report;
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }
}

/**
 * What a readiness fan-out writes to the host, made by the benchmark's child process with every member
 * healthy (`--control`): per FederatedConfigMap a status write adding a `ClusterNotReady` entry
 * for a cluster that does not exist, one at a time as the controller manager's status writer
 * makes a fan-out's, and a Warning `ClusterNotReady` Event, recorded through its event pipeline
 * ({@link BackgroundEventSink}: 4 writes at a time, at most 1,000 waiting, more dropped), on a
 * client with its reporting budget. The controller manager reconciles nothing for them (a
 * status-only update enqueues no key) but receives their watch events, as it does its own
 * writes'. What the healthy members' changes pay meanwhile is what the contract's host writes
 * cost on this machine, with no member down. Paced (`--control-rate`), the status writes keep to
 * a rate and each object's Event follows its status write: what a paced fan-out would cost.
 */
class FanOutWrites {
  static readonly CLUSTER = 'bench-control';

  /**
   * The writes' own host client, with the rate budget of the controller manager's reporting
   * client (`--kube-api-qps` / `--kube-api-burst` defaults, 500 / 1,000), which paces its fan-out.
   */
  readonly #host: DynamicClient;
  readonly #namespace: string;
  /** Status writes a second; 0: unpaced. */
  readonly #rate: number;
  #objects: readonly KubeObject[] = [];

  constructor(kubeconfigPath: string, namespace: string, rate: number) {
    this.#host = DynamicClient.fromKubeconfig(Kubeconfig.fromFile(kubeconfigPath), { context: 'host', qps: 500, burst: 1000 });
    this.#namespace = namespace;
    this.#rate = rate;
  }

  /** Lists the objects to write (before the phase); resolves to how many. */
  async prepare(): Promise<number> {
    this.#objects = await this.#list();
    return this.#objects.length;
  }

  /** Writes them all; resolves to the Events written (the rest were dropped by the bounded queue) when done. */
  async write(): Promise<number> {
    // The controller manager's own event pipeline: what its bounded queue drops is dropped here too.
    const host = this.#host;
    const sink = new BackgroundEventSink(
      new EventRecorder({ events: (ns) => host.resource(RESOURCES.events, ns), component: 'kubefed-sync' }),
    );
    await (this.#rate > 0 ? this.#writePaced(sink) : this.#writeAtOnce(sink));
    await sink.drained();
    return this.#objects.length - sink.dropped;
  }

  /**
   * As the controller manager makes a fan-out: every object's Event recorded as its reconcile
   * runs (a turn of the event loop after each), the status writes one after the other meanwhile.
   */
  async #writeAtOnce(sink: BackgroundEventSink): Promise<void> {
    const statuses = (async () => {
      for (const obj of this.#objects) await this.#updateStatus(obj, (clusters) => [...clusters, CONTROL_ENTRY]);
    })();
    for (const obj of this.#objects) {
      void sink.record(obj, CONTROL_EVENT);
      await nextTurn();
    }
    await statuses;
  }

  /** The i-th object's status written no earlier than i ÷ rate seconds after the start, its Event recorded after it. */
  async #writePaced(sink: BackgroundEventSink): Promise<void> {
    const t0 = performance.now();
    for (const [i, obj] of this.#objects.entries()) {
      const wait = t0 + (i * 1000) / this.#rate - performance.now();
      if (wait > 0) await sleep(wait);
      await this.#updateStatus(obj, (clusters) => [...clusters, CONTROL_ENTRY]);
      void sink.record(obj, CONTROL_EVENT);
    }
  }

  /** Removes the entries again (not timed: no change is made meanwhile), and closes the client. */
  async undo(): Promise<void> {
    try {
      for (const obj of await this.#list()) {
        if (clustersOf(obj).some((c) => c.name === FanOutWrites.CLUSTER))
          await this.#updateStatus(obj, (clusters) => clusters.filter((c) => c.name !== FanOutWrites.CLUSTER));
      }
    } finally {
      this.#host.close();
    }
  }

  /** The objects as the controller manager's cache holds them, and so as its status writes send them: without managedFields. */
  async #list(): Promise<KubeObject[]> {
    return (await this.#host.resource(FEDERATED_CONFIG_MAPS, this.#namespace).list()).items.map(withoutManagedFields.transform);
  }

  /** Writes `obj`'s status with its clusters changed by `edit`; read again when the controller manager wrote it meanwhile. */
  async #updateStatus(obj: KubeObject, edit: (clusters: readonly ClusterEntry[]) => ClusterEntry[]): Promise<void> {
    const resource = this.#host.resource(FEDERATED_CONFIG_MAPS, this.#namespace);
    for (let current = obj; ; current = withoutManagedFields.transform(await resource.get(obj.metadata.name ?? ''))) {
      const status = { ...(current.status as Record<string, unknown> | undefined), clusters: edit(clustersOf(current)) };
      try {
        await resource.updateStatus({ ...current, status });
        return;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
  }
}

const CONTROL_ENTRY = { name: FanOutWrites.CLUSTER, status: 'ClusterNotReady' };
const CONTROL_EVENT = { type: 'Warning', reason: 'ClusterNotReady', message: 'Cluster not ready' } as const;

interface ClusterEntry {
  readonly name: string;
  readonly status?: string;
}

function clustersOf(obj: KubeObject): readonly ClusterEntry[] {
  return (obj.status as { clusters?: ClusterEntry[] } | undefined)?.clusters ?? [];
}

/** The child: {@link FanOutWrites} driven by the parent's requests. */
async function child(send: (report: Report) => Promise<void>, kubeconfigPath: string, namespace: string, rate: number): Promise<void> {
  const writes = new FanOutWrites(kubeconfigPath, namespace, rate);
  await send({ ready: await writes.prepare() });
  process.on('message', (request: Request) => {
    const done =
      request.do === 'write'
        ? (async (): Promise<Report> => {
            const cpu = process.cpuUsage();
            const eventsWritten = await writes.write();
            const used = process.cpuUsage(cpu);
            const doneAtEpochMs = performance.timeOrigin + performance.now();
            return { written: { doneAtEpochMs, eventsWritten, cpuSeconds: (used.user + used.system) / 1e6 } };
          })()
        : writes.undo().then((): Report => ({ undone: true }));
    void done
      .catch((err: unknown): Report => ({ failed: err instanceof Error ? err.message : String(err) }))
      .then((report) => send(report))
      .then(() => {
        if (request.do === 'undo') process.disconnect();
      });
  });
  // Once the parent has gone (or, after the undo, the channel is closed), so does the child.
  process.on('disconnect', () => process.exit(0));
}

// Started by FanOutWriterProcess.start (the benchmark's own process has an IPC channel too: tsx's).
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const channel = process;
  const send = (report: Report): Promise<void> =>
    new Promise((resolve, reject) => channel.send?.(report, undefined, undefined, (err) => (err === null ? resolve() : reject(err))));
  const [kubeconfigPath = '', namespace = '', rate = '0'] = process.argv.slice(2);
  await child(send, kubeconfigPath, namespace, Number(rate));
}
