// Benchmark of @kubefed/runtime: initial list+watch of 10k objects from kube-sim, and work-queue
// throughput through a no-op reconciler. Prints figures; asserts nothing about time.
// Run: npm run bench -- test/bench/runtime.bench.ts (on sources; no build needed), or
// npx tsx test/bench/runtime.bench.ts after `npm run build`.
import { DynamicClient, Kubeconfig, type ResourceClient } from '@kubefed/client';
import { startCluster } from '@kubefed/kube-sim';
import { Controller, Informer, listerWatcherFor } from '@kubefed/runtime';

const OBJECTS = 10_000;
const KEYS = 200_000;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function createMany(cms: ResourceClient, n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < n) {
        const i = next++;
        await cms.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `bench-${i}`, labels: { bench: 'runtime' } },
          data: { index: String(i), payload: 'x'.repeat(200) },
        });
      }
    }),
  );
}

async function informerBench(): Promise<void> {
  await using sim = await startCluster({ name: 'runtime-bench', tls: false });
  const client = DynamicClient.fromKubeconfig(Kubeconfig.fromString(sim.kubeconfigYaml()), { qps: 0 });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default');
  let t = performance.now();
  await createMany(cms, OBJECTS);
  console.log(`created ${OBJECTS} ConfigMaps in ${(performance.now() - t).toFixed(0)} ms`);

  for (const pageSize of [500, 0]) {
    const heapBefore = process.memoryUsage().heapUsed;
    const informer = new Informer({ name: 'configmaps', listerWatcher: listerWatcherFor(cms), pageSize });
    const ac = new AbortController();
    t = performance.now();
    const running = informer.start(ac.signal);
    await informer.waitForSync();
    const syncMs = performance.now() - t;
    const heapAfter = process.memoryUsage().heapUsed;
    // Watch latency: one change until it is in the cache.
    const target = 'bench-42';
    t = performance.now();
    await cms.patch(target, { data: { index: 'changed' } }, 'merge');
    while ((informer.store.get(`default/${target}`)?.data as Record<string, string> | undefined)?.index !== 'changed')
      await new Promise((r) => setImmediate(r));
    const watchMs = performance.now() - t;
    console.log(
      `informer list+watch of ${informer.store.size} objects (page size ${pageSize || 'unpaged'}): synced in ${syncMs.toFixed(0)} ms, ` +
        `heap +${mb(heapAfter - heapBefore)} (~${((heapAfter - heapBefore) / informer.store.size / 1024).toFixed(1)} KiB/object), ` +
        `change visible in cache after ${watchMs.toFixed(1)} ms`,
    );
    ac.abort();
    await running;
  }
  client.close();
}

async function queueBench(workers: number): Promise<void> {
  let reconciled = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const controller = new Controller({
    name: 'noop',
    maxConcurrentReconciles: workers,
    reconciler: {
      reconcile: () => {
        if (++reconciled === KEYS) finish();
        return Promise.resolve();
      },
    },
  });
  const ac = new AbortController();
  const running = controller.start(ac.signal);
  const t = performance.now();
  for (let i = 0; i < KEYS; i++) controller.queue.add(`ns/key-${i}`);
  const addMs = performance.now() - t;
  await finished;
  const totalMs = performance.now() - t;
  console.log(
    `work queue, ${workers} worker(s): ${KEYS} keys added in ${addMs.toFixed(0)} ms, all reconciled in ${totalMs.toFixed(0)} ms ` +
      `(${Math.round(KEYS / (totalMs / 1000)).toLocaleString('en-US')} keys/s)`,
  );
  ac.abort();
  await running;
}

await informerBench();
for (const workers of [1, 10, 50]) await queueBench(workers);
