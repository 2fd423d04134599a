import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, pingRedis } from '../src/redis-connection.js';
import { freePorts, RedisProcesses } from './redis-processes.js';
import { startWorkload } from './sync-workload.js';

const defaultPassword = randomBytes(12).toString('hex');
// Characters that must be percent-encoded in a URL.
const aclPassword = `kf/${randomBytes(8).toString('hex')}@:#%`;
const limitedPassword = randomBytes(12).toString('hex');
let processes: RedisProcesses;
let port: number;

beforeAll(async () => {
  processes = await RedisProcesses.create();
  [port = 0] = await freePorts(1);
  await processes.start(port, {
    config: [
      `requirepass ${defaultPassword}`,
      // What operators grant a dedicated user: everything, or only the keys under the queue prefix.
      `user kubefed on >${aclPassword} ~* &* +@all`,
      `user kubefed-limited on >${limitedPassword} ~kf-acl-* resetchannels +@all -@dangerous +info`,
    ],
  });
});
afterAll(async () => {
  await processes[Symbol.asyncDispose]();
});

const enc = encodeURIComponent;

describe('a Redis server with a password and ACL users', () => {
  it.each([
    ['the default user with requirepass', () => `redis://:${enc(defaultPassword)}@127.0.0.1:${port}`, 'kf-default'],
    ['an ACL user and password', () => `redis://kubefed:${enc(aclPassword)}@127.0.0.1:${port}`, 'kf-user'],
    ['an ACL user with ?password=', () => `redis://kubefed@127.0.0.1:${port}/0?password=${enc(aclPassword)}`, 'kf-param'],
    [
      'an ACL user limited to the prefix and without @dangerous commands',
      () => `redis://kubefed-limited:${enc(limitedPassword)}@127.0.0.1:${port}`,
      'kf-acl-limited',
    ],
  ])('runs producer, workers and the outcome stream as %s', async (_title, url, prefix) => {
    await using workload = await startWorkload({ connect: (role) => createRedisConnection(url(), { role }), prefix });
    const names = Array.from({ length: 10 }, (_, i) => `app-${i}`);
    await workload.enqueue(names);
    await workload.settled(20_000);
    expect(workload.overlaps).toEqual([]);
    await expect.poll(() => workload.outcomes.size, { timeout: 10_000 }).toBe(20);
    expect(workload.enqueueFailures).toBe(0);
  });

  it('refuses the limited user outside its keys, saying NOPERM', async () => {
    const connection = createRedisConnection(`redis://kubefed-limited:${enc(limitedPassword)}@127.0.0.1:${port}`, { role: 'producer' });
    try {
      await pingRedis(connection, 5000);
      await expect(connection.set('elsewhere', '1')).rejects.toThrow(/NOPERM/);
    } finally {
      connection.disconnect();
    }
  });
});
