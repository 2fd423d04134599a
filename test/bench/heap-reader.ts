// The memory of a controller manager after a full GC, for the process benchmarks: a heap
// snapshot (SIGUSR2 with `--heapsnapshot-signal`) is the one way to make another process collect
// all its garbage before its heap is read.
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalFederation, ManagedProcess } from '@kubefed/testing';
import { metricValue, residentBytes } from '../../packages/controller-manager/test/process-federation.js';
import { alive, until, withNodeOptions } from './bench-support.js';

/** Memory of a controller manager after a full GC. */
export interface Memory {
  /** The live heap: the self sizes of every object of the heap snapshot added up (exact: what survived the snapshot's GC). */
  readonly live: number;
  /** Heap used as the process reports it on /metrics just after the snapshot (may include work done since). */
  readonly heap: number;
  readonly rss: number;
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** `live heap …, heap used …, RSS …` */
export const describeMemory = (m: Memory): string => `live heap ${mib(m.live)}, heap used ${mib(m.heap)}, RSS ${mib(m.rss)}`;

/**
 * A metric of a process whose thread was just blocked (by a heap snapshot): the keep-alive
 * connection of an earlier scrape may be closed by the server just as it is reused (ECONNRESET),
 * so a failed read is tried again.
 */
async function metricAfterPause(cm: ManagedProcess, name: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await metricValue(cm, name);
    } catch (err) {
      if (attempt >= 3 || !alive(cm)) throw err;
    }
  }
}

/**
 * The sum of the self sizes of the nodes of a V8 heap snapshot, read as a stream: the snapshot of
 * a heap of a few hundred MiB is a file longer than the longest string V8 can hold, so it is never
 * parsed whole. The file is `{"snapshot":{"meta":{"node_fields":[…],…},…},"nodes":[n,n,…],…}`: the
 * header is parsed as JSON, then the numbers of `nodes` are summed field by field.
 */
async function liveHeapOf(path: string): Promise<number> {
  const NODES = '"nodes":[';
  let header = '';
  let fields: string[] | undefined;
  let selfSize = -1;
  let index = 0;
  let digits = '';
  let total = 0;
  const take = (): void => {
    if (digits === '') return;
    if (index % (fields?.length ?? 1) === selfSize) total += Number(digits);
    index++;
    digits = '';
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    let text = chunk as string;
    if (fields === undefined) {
      header += text;
      const at = header.indexOf(NODES);
      if (at < 0) continue;
      const meta = JSON.parse(`${header.slice(0, header.lastIndexOf(',', at))}}`) as { snapshot: { meta: { node_fields: string[] } } };
      fields = meta.snapshot.meta.node_fields;
      selfSize = fields.indexOf('self_size');
      text = header.slice(at + NODES.length);
    }
    for (const c of text) {
      if (c >= '0' && c <= '9') {
        digits += c;
        continue;
      }
      take();
      if (c === ']') return total;
    }
  }
  throw new Error(`${path}: no end of "nodes" in the heap snapshot`);
}

/** Starts controller managers that write a heap snapshot on SIGUSR2, and reads their memory. */
export class HeapReader {
  readonly #dir: string;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  static async create(): Promise<HeapReader> {
    return new HeapReader(await mkdtemp(join(tmpdir(), 'kubefed-bench-heap-')));
  }

  /**
   * `fed.startControllerManager(args)`, the process writing a heap snapshot into this reader's
   * folder on SIGUSR2; `BENCH_CM_NODE_OPTIONS` (e.g. `--max-semi-space-size=64`) goes to its
   * Node alone.
   */
  async startControllerManager(fed: LocalFederation, args: readonly string[]): Promise<ManagedProcess> {
    const own = process.env['BENCH_CM_NODE_OPTIONS'] ?? '';
    return withNodeOptions(`${own} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${this.#dir}`, () => fed.startControllerManager(args));
  }

  /** The memory of `cm` (started by {@link startControllerManager}) after a full GC. */
  async memoryOf(cm: ManagedProcess): Promise<Memory> {
    process.kill(cm.child.pid ?? 0, 'SIGUSR2');
    await until('heap snapshot', async () => (await readdir(this.#dir)).length > 0, 120_000, 100);
    // The snapshot is written on the process's one thread: once it answers, the GC and the write are done.
    const heap = await metricAfterPause(cm, 'kubefed_nodejs_heap_size_used_bytes');
    const [file] = await readdir(this.#dir);
    const live = await liveHeapOf(join(this.#dir, file ?? ''));
    await rm(this.#dir, { recursive: true, force: true });
    await mkdir(this.#dir, { recursive: true });
    return { live, heap, rss: await residentBytes(cm.child.pid ?? 0) };
  }

  async dispose(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true });
  }
}
