import { type BackendFactory, createIORedisClient, QueueKeys, RedisConnection as BullConnection, RedisQueueBackend } from 'bullmq';
import type { RedisConnection } from './redis-connection.js';

/**
 * A worker's blocking connection: it only ever sends `BZPOPMIN` on the queue's marker key, so it
 * defines none of BullMQ's Lua scripts. BullMQ defines all of them (some 60) on every connection
 * it opens; on the blocking duplicate that BullMQ opens for each worker, that was some 85 KiB of
 * heap per member cluster (the `Script` objects and their command functions), most of what an
 * idle member cost the controller manager.
 */
class BlockingConnection extends BullConnection {
  protected override loadCommands(): void {
    // Nothing to define: BZPOPMIN is a plain command.
  }
}

/**
 * The backend of a sync worker's BullMQ `Worker`: what BullMQ's default `createRedisBackend`
 * builds for a worker (the shared connection for the scripts, a named duplicate for the
 * blocking fetch, the same keys), except that the blocking duplicate is a
 * {@link BlockingConnection}. The worker behaves the same; only its memory differs.
 */
export function syncWorkerBackend(connection: RedisConnection): BackendFactory<RedisQueueBackend> {
  return (name, opts) => {
    const shared = new BullConnection(connection, { shared: true, blocking: false });
    // The worker's options: `prefix` and `name` are those of its WorkerOptions.
    const { prefix = 'bull', name: workerName } = opts as { prefix?: string; name?: string };
    // The name BullMQ gives a worker's blocking connection (`Queue.getWorkers` lists clients by it).
    const connectionName = `${prefix}:${Buffer.from(name).toString('base64')}${workerName === undefined ? '' : `:w:${workerName}`}`;
    const blocking = new BlockingConnection(createIORedisClient(connection).duplicate({ connectionName }), {
      shared: false,
      blocking: true,
    });
    const keys = new QueueKeys(prefix);
    return new RedisQueueBackend(shared, name, keys.getKeys(name), (type) => keys.toKey(name, type), opts, blocking);
  };
}
