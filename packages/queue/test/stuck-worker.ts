// Test support, run as its own process: a SyncWorkerHost serving `member1` whose processor
// never finishes. It prints `{"started":"<deduplication id>"}` for every job it takes, so that a
// test can kill it (SIGKILL) with a job held and see another worker take the job over.
//
//   node --conditions=@kubefed/source --import tsx packages/queue/test/stuck-worker.ts <redis-url> <prefix>
import { createRedisConnection } from '../src/redis-connection.js';
import { syncRequestId } from '../src/sync-request.js';
import { SyncWorkerHost } from '../src/sync-worker-host.js';

// eslint-disable-next-line no-restricted-properties -- a test fixture run as its own process: its arguments say where Redis is
const [url, prefix] = process.argv.slice(2);
if (url === undefined || prefix === undefined) throw new Error('usage: stuck-worker.ts <redis-url> <prefix>');
await SyncWorkerHost.start({
  connection: createRedisConnection(url, { role: 'worker' }),
  prefix,
  clusters: ['member1'],
  processor: (job) => {
    process.stdout.write(`${JSON.stringify({ started: syncRequestId(job) })}\n`);
    return new Promise<void>(() => undefined);
  },
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
