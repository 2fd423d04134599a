/**
 * Test support: a propagation-like workload through the real producer, worker hosts and outcome
 * stream of this package, on whatever Redis topology the connections point at. The processor
 * records every run, so that tests can check that every key completed after its last enqueue
 * (nothing lost) and that no key ever ran twice at once.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { BullMqJobProducer } from '../src/bullmq-job-producer.js';
import type { RedisConnection } from '../src/redis-connection.js';
import type { SyncJob } from '../src/sync-job.js';
import { SyncOutcomePublisher, SyncOutcomeSubscriber } from '../src/sync-outcome-stream.js';
import { SyncWorkerHost } from '../src/sync-worker-host.js';

/** One run of the processor. */
interface Run {
  readonly key: string;
  /** Sequence number when it started (shared with enqueues: a run after an enqueue has a higher one). */
  readonly start: number;
  end: number | undefined;
}

/** Options of {@link startWorkload}. */
export interface WorkloadOptions {
  /** Opens a connection of `role` to the Redis under test; the workload closes it. */
  readonly connect: (role: 'producer' | 'worker') => RedisConnection;
  /** BullMQ prefix, unique per test. */
  readonly prefix: string;
  /** Member clusters (one queue each). Default `['member1', 'member2']`. */
  readonly clusters?: readonly string[];
  /** Worker hosts (as if in separate processes, each with its own connection). Default 2. */
  readonly hosts?: number;
  /** Concurrency per cluster per host. Default 3. */
  readonly concurrency?: number;
}

/** A running workload; `close` stops it and closes its connections. */
export interface Workload extends AsyncDisposable {
  readonly runs: readonly Run[];
  /** Keys that started while another run of the same key was still going. */
  readonly overlaps: readonly string[];
  /** Outcomes received through the outcome stream, by key. */
  readonly outcomes: ReadonlySet<string>;
  /** Failed enqueue attempts (retried, as a reconciler would). */
  readonly enqueueFailures: number;
  readonly producerConnection: RedisConnection;
  readonly workerConnections: readonly RedisConnection[];
  /** Enqueues `names` on every cluster; a failed enqueue is retried until it succeeds (within `timeoutMs`). */
  enqueue(names: readonly string[], timeoutMs?: number): Promise<void>;
  /** While closed, processors wait before returning (their jobs stay active). */
  closeGate(): void;
  openGate(): void;
  /** Runs started and not finished. */
  running(): number;
  /** Waits until every enqueued key has a finished run that started after its last enqueue, and the queues are empty. */
  settled(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** `cluster/name`. */
export const keyOf = (job: Pick<SyncJob, 'cluster' | 'name'>): string => `${job.cluster}/${job.name}`;

/** Starts the producer, the worker hosts and an outcome subscriber. */
export async function startWorkload(options: WorkloadOptions): Promise<Workload> {
  const clusters = options.clusters ?? ['member1', 'member2'];
  const connections: RedisConnection[] = [];
  const open = (role: 'producer' | 'worker'): RedisConnection => {
    const c = options.connect(role);
    connections.push(c);
    return c;
  };
  const signingKey = randomBytes(32);
  const runs: Run[] = [];
  const overlaps: string[] = [];
  const outcomes = new Set<string>();
  const lastEnqueue = new Map<string, number>();
  const active = new Map<string, number>();
  let seq = 0;
  let enqueueFailures = 0;
  let gate: { promise: Promise<void>; open: () => void } | undefined;

  const producerConnection = open('producer');
  const producer = new BullMqJobProducer({
    connection: producerConnection,
    prefix: options.prefix,
    retry: { backoffDelayMs: 50, jitter: 0 },
  });
  const hosts: SyncWorkerHost[] = [];
  const workerConnections: RedisConnection[] = [];
  const stopped = new AbortController();
  let subscription: Promise<void> = Promise.resolve();
  const close = async (): Promise<void> => {
    gate?.open();
    stopped.abort();
    await Promise.allSettled(hosts.map((h) => h.close({ timeoutMs: 2000 })));
    await producer.close();
    await subscription;
    for (const c of connections) c.disconnect();
  };
  try {
    for (let i = 0; i < (options.hosts ?? 2); i++) {
      const connection = open('worker');
      workerConnections.push(connection);
      const publisher = new SyncOutcomePublisher({ connection, prefix: options.prefix, signingKey });
      hosts.push(
        await SyncWorkerHost.start({
          connection,
          prefix: options.prefix,
          clusters,
          defaults: { concurrency: options.concurrency ?? 3 },
          maxBackoffMs: 1000,
          processor: async (job) => {
            const key = keyOf(job);
            const run: Run = { key, start: ++seq, end: undefined };
            runs.push(run);
            const now = (active.get(key) ?? 0) + 1;
            active.set(key, now);
            if (now > 1) overlaps.push(key);
            try {
              if (gate !== undefined) await gate.promise;
              await publisher.publish({
                federatedType: job.federatedType,
                namespace: job.namespace,
                name: job.name,
                cluster: job.cluster,
                result: { status: '' },
              });
              run.end = ++seq;
            } finally {
              active.set(key, (active.get(key) ?? 1) - 1);
            }
          },
        }),
      );
    }
    const subscriber = new SyncOutcomeSubscriber({ connection: open('worker'), prefix: options.prefix, signingKey });
    subscription = subscriber.run(stopped.signal, (o) => outcomes.add(keyOf(o)), { blockMs: 200, retryMs: 100 });
    // The subscriber reads what is published after it started: wait until it reads.
    const probe = new SyncOutcomePublisher({ connection: producerConnection, prefix: options.prefix, signingKey });
    const probeOutcome = { federatedType: 'probe', namespace: 'probe', name: 'probe', cluster: 'probe', result: null };
    await expect
      .poll(async () => (await probe.publish(probeOutcome), outcomes.has('probe/probe')), { timeout: 20_000, interval: 200 })
      .toBe(true);
    outcomes.delete('probe/probe');
  } catch (err) {
    await close();
    throw err;
  }

  return {
    runs,
    overlaps,
    outcomes,
    get enqueueFailures() {
      return enqueueFailures;
    },
    producerConnection,
    workerConnections,
    async enqueue(names, timeoutMs = 30_000) {
      const jobs: SyncJob[] = clusters.flatMap((cluster) =>
        names.map((name) => ({ kind: 'sync' as const, federatedType: 'deployments.apps', namespace: 'web', name, cluster })),
      );
      const deadline = Date.now() + timeoutMs;
      for (const job of jobs) {
        for (;;) {
          const at = ++seq;
          try {
            await producer.enqueue(job);
            lastEnqueue.set(keyOf(job), at);
            break;
          } catch (err) {
            enqueueFailures++;
            if (Date.now() > deadline) throw err;
            // A reconciler would be retried with backoff; a short pause keeps this loop from spinning.
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
    },
    closeGate() {
      let open = (): void => undefined;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
    },
    openGate() {
      const g = gate;
      gate = undefined;
      g?.open();
    },
    running: () => [...active.values()].reduce((a, b) => a + b, 0),
    async settled(timeoutMs) {
      const pending = (): string[] =>
        [...lastEnqueue].filter(([key, at]) => !runs.some((r) => r.key === key && r.start > at && r.end !== undefined)).map(([key]) => key);
      await expect.poll(() => pending().slice(0, 5), { timeout: timeoutMs, interval: 100 }).toEqual([]);
      const idle = { waiting: 0, active: 0, delayed: 0, failed: 0 };
      await expect
        .poll(() => Promise.all(clusters.map((c) => producer.counts(c))), { timeout: timeoutMs, interval: 100 })
        .toEqual(clusters.map(() => idle));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
