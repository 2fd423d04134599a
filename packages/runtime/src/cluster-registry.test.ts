import { describe, expect, it } from 'vitest';
import { ClusterRegistry } from './cluster-registry.js';

function setup() {
  const started: string[] = [];
  const stopped: string[] = [];
  const events: string[] = [];
  const registry = new ClusterRegistry<{ cluster: string }, { endpoint: string }>({
    factory: (name, config, signal) => {
      if (config.endpoint === 'broken') return Promise.reject(new Error('no route'));
      started.push(`${name}@${config.endpoint}`);
      signal.addEventListener('abort', () => stopped.push(`${name}@${config.endpoint}`));
      return Promise.resolve({ cluster: name });
    },
  });
  registry.subscribe({ onEngaged: (c) => events.push(`engaged ${c.name}`), onDisengaged: (n) => events.push(`disengaged ${n}`) });
  return { registry, started, stopped, events };
}

describe('ClusterRegistry', () => {
  it('engages clusters once, lists them and disengages them by aborting their signal', async () => {
    const t = setup();
    const m1 = await t.registry.engage('member1', { endpoint: 'a' });
    await t.registry.engage('member1', { endpoint: 'a' });
    await t.registry.engage('member2', { endpoint: 'b' });
    expect(t.registry.list()).toEqual(['member1', 'member2']);
    expect(t.started).toEqual(['member1@a', 'member2@b']);
    await t.registry.disengage('member1');
    expect(m1?.signal.aborted).toBe(true);
    expect(t.stopped).toEqual(['member1@a']);
    expect(t.registry.list()).toEqual(['member2']);
    expect(t.events).toEqual(['engaged member1', 'engaged member2', 'disengaged member1']);
  });

  it('restarts a cluster whose config changed', async () => {
    const t = setup();
    await t.registry.engage('member1', { endpoint: 'a' });
    await t.registry.engage('member1', { endpoint: 'b' });
    expect(t.started).toEqual(['member1@a', 'member1@b']);
    expect(t.stopped).toEqual(['member1@a']);
    expect(t.registry.get('member1')?.value).toEqual({ cluster: 'member1' });
  });

  it('leaves a cluster whose factory failed disengaged so that a later engage retries', async () => {
    const t = setup();
    expect(await t.registry.engage('member1', { endpoint: 'broken' })).toBeUndefined();
    expect(t.registry.list()).toEqual([]);
    expect(await t.registry.engage('member1', { endpoint: 'a' })).toBeDefined();
    expect(t.registry.list()).toEqual(['member1']);
  });

  it('syncs the engaged set to the desired clusters, engaging new and changed ones and disengaging the rest', async () => {
    const t = setup();
    await t.registry.engage('member1', { endpoint: 'a' });
    await t.registry.engage('member2', { endpoint: 'b' });
    await t.registry.sync(
      new Map([
        ['member2', { endpoint: 'b2' }],
        ['member3', { endpoint: 'c' }],
      ]),
    );
    expect(t.registry.list()).toEqual(['member2', 'member3']);
    expect(t.started.sort()).toEqual(['member1@a', 'member2@b', 'member2@b2', 'member3@c']);
    expect(t.stopped.sort()).toEqual(['member1@a', 'member2@b']);
  });

  it('disengages every cluster when stopped', async () => {
    const t = setup();
    await t.registry.engage('member1', { endpoint: 'a' });
    await t.registry.engage('member2', { endpoint: 'b' });
    const ac = new AbortController();
    const running = t.registry.start(ac.signal);
    ac.abort();
    await running;
    expect(t.stopped.sort()).toEqual(['member1@a', 'member2@b']);
    expect(t.registry.list()).toEqual([]);
    expect(await t.registry.engage('member3', { endpoint: 'c' })).toBeUndefined();
  });
});
