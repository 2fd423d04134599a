import type { Clock, Runnable, TimerHandle } from '@kubefed/runtime';
import { SERVICE_STATUS_TYPE, servicesTypeConfig } from '@kubefed/testing/fixtures';
import { describe, expect, it } from 'vitest';
import { serviceStatusTypeOf, type ServiceStatusType } from './service-status-type.js';
import { StatusControllers } from './status-controllers.js';

/** A clock whose time moves only when told (an allowed test double). */
class ManualClock implements Clock {
  #now = 0;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }
  advance(ms: number): void {
    this.#now += ms;
    for (const [id, t] of [...this.#timers]) {
      if (t.at > this.#now) continue;
      this.#timers.delete(id);
      t.fn();
    }
  }
}

/** A status controller stand-in: runs until stopped, or fails at once while `failing`. */
class Children {
  starts: string[] = [];
  stops = 0;
  failing = false;
  build = (type: ServiceStatusType): Runnable => ({
    name: 'status-services',
    start: async (signal) => {
      this.starts.push(type.statusKind);
      if (this.failing) throw new Error('watch failed');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      this.stops++;
    },
  });
}

const typeOf = (kind: string): ServiceStatusType => {
  const ftc = servicesTypeConfig('kf', { statusType: { ...SERVICE_STATUS_TYPE, kind } });
  const type = serviceStatusTypeOf(ftc);
  if (type === undefined) throw new Error('no status type');
  return type;
};

describe('StatusControllers', () => {
  it('starts a controller once, restarts it for a changed type and stops it for none', async () => {
    const children = new Children();
    const controllers = new StatusControllers({ build: children.build });
    expect(await controllers.ensure('kf/services', typeOf('FederatedServiceStatus'))).toBe(true);
    expect(await controllers.ensure('kf/services', typeOf('FederatedServiceStatus'))).toBe(true);
    expect(children.starts).toEqual(['FederatedServiceStatus']);
    expect(await controllers.ensure('kf/services', typeOf('OtherStatus'))).toBe(true);
    expect(children.starts).toEqual(['FederatedServiceStatus', 'OtherStatus']);
    expect(children.stops).toBe(1);
    expect(await controllers.ensure('kf/services', undefined)).toBe(false);
    expect(controllers.isRunning('services')).toBe(false);
    expect(children.stops).toBe(2);
  });

  it('reports a failed controller and restarts it only after a backoff that doubles', async () => {
    const children = new Children();
    const clock = new ManualClock();
    const errors: string[] = [];
    const requeued: string[] = [];
    const controllers = new StatusControllers({
      build: children.build,
      clock,
      onError: (name, err) => errors.push(`${name}: ${(err as Error).message}`),
      requeue: (key) => requeued.push(key),
    });
    const type = typeOf('FederatedServiceStatus');
    children.failing = true;
    await controllers.ensure('kf/services', type);
    await expect.poll(() => errors).toEqual(['services: watch failed']);
    expect(controllers.isRunning('services')).toBe(false);
    expect(await controllers.ensure('kf/services', type)).toBe(false);
    clock.advance(999);
    expect(requeued).toEqual([]);
    clock.advance(1);
    expect(requeued).toEqual(['kf/services']);
    expect(await controllers.ensure('kf/services', type)).toBe(true);
    await expect.poll(() => errors.length).toBe(2);
    clock.advance(1000);
    expect(await controllers.ensure('kf/services', type)).toBe(false);
    clock.advance(1000);
    expect(requeued).toEqual(['kf/services', 'kf/services']);
    children.failing = false;
    expect(await controllers.ensure('kf/services', type)).toBe(true);
    expect(children.starts).toHaveLength(3);
    await controllers.close();
    expect(children.stops).toBe(1);
  });

  it('starts nothing while the check rejects, reporting it and looking again after the backoff', async () => {
    const children = new Children();
    const clock = new ManualClock();
    const errors: string[] = [];
    const requeued: string[] = [];
    let served = false;
    const controllers = new StatusControllers({
      build: children.build,
      check: () => (served ? Promise.resolve() : Promise.reject(new Error('spec.statusType: not served'))),
      clock,
      onError: (name, err) => errors.push(`${name}: ${(err as Error).message}`),
      requeue: (key) => requeued.push(key),
    });
    const type = typeOf('FederatedServiceStatus');
    expect(await controllers.ensure('kf/services', type)).toBe(false);
    expect(errors).toEqual(['services: spec.statusType: not served']);
    expect(children.starts).toEqual([]);
    clock.advance(1000);
    expect(requeued).toEqual(['kf/services']);
    served = true;
    expect(await controllers.ensure('kf/services', type)).toBe(true);
    expect(children.starts).toEqual(['FederatedServiceStatus']);
    await controllers.close();
  });
});
