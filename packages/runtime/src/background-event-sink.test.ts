import type { KubeObject } from '@kubefed/client';
import { describe, expect, it } from 'vitest';
import { BackgroundEventSink } from './background-event-sink.js';
import type { EventSink, ObjectEvent } from './event-recorder.js';

/** An in-memory sink whose writes end only when the test says so. */
class HeldSink implements EventSink {
  readonly started: string[] = [];
  readonly #release: (() => void)[] = [];

  record(involved: KubeObject, event: ObjectEvent): Promise<void> {
    this.started.push(`${involved.metadata.name ?? ''}/${event.reason}`);
    return new Promise((resolve) => this.#release.push(resolve));
  }

  releaseAll(): void {
    for (const r of this.#release.splice(0)) r();
  }
}

const obj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });
const warning = (reason: string): ObjectEvent => ({ type: 'Warning', reason, message: reason });

describe('BackgroundEventSink', () => {
  it('resolves record() while the write it queued is still waiting for the API server', async () => {
    const held = new HeldSink();
    const sink = new BackgroundEventSink(held, { concurrency: 1 });
    await sink.record(obj('a'), warning('One'));
    await sink.record(obj('b'), warning('Two'));
    expect(held.started).toEqual(['a/One']);
    held.releaseAll();
    await expect.poll(() => held.started).toEqual(['a/One', 'b/Two']);
    held.releaseAll();
    await sink.drained();
  });

  it('writes at most `concurrency` events at once, in the order recorded', async () => {
    const held = new HeldSink();
    const sink = new BackgroundEventSink(held, { concurrency: 2 });
    for (const name of ['a', 'b', 'c', 'd']) await sink.record(obj(name), warning('R'));
    expect(held.started).toEqual(['a/R', 'b/R']);
    held.releaseAll();
    await expect.poll(() => held.started).toEqual(['a/R', 'b/R', 'c/R', 'd/R']);
    held.releaseAll();
    await sink.drained();
  });

  it('drops events beyond maxQueued instead of holding the caller or growing without bound', async () => {
    const held = new HeldSink();
    const sink = new BackgroundEventSink(held, { concurrency: 1, maxQueued: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) await sink.record(obj(name), warning('R'));
    // a is being written, b and c wait, d and e are dropped.
    expect(sink.dropped).toBe(2);
    for (let i = 0; i < 3; i++) {
      held.releaseAll();
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await sink.drained();
    expect(held.started).toEqual(['a/R', 'b/R', 'c/R']);
  });

  it('keeps writing after a sink that rejects, although sinks should not', async () => {
    const written: string[] = [];
    const sink = new BackgroundEventSink(
      {
        record: (involved) => {
          written.push(involved.metadata.name ?? '');
          return involved.metadata.name === 'bad' ? Promise.reject(new Error('broken sink')) : Promise.resolve();
        },
      },
      { concurrency: 1 },
    );
    await sink.record(obj('bad'), warning('R'));
    await sink.record(obj('good'), warning('R'));
    await sink.drained();
    expect(written).toEqual(['bad', 'good']);
  });
});
