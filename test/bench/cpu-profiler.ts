// CPU profiles of a child process over a window of a benchmark, through the V8 inspector
// (Chrome DevTools Protocol over a WebSocket): the process is started with the Node options
// `INSPECTABLE` (see `withNodeOptions`), the profiler attaches to the address it prints. A
// profile tells where the CPU went; `longestBusy` tells what the process did while it answered
// nothing (an event-loop stall), and `activityIn` what it did while one change was under way,
// which a total over the window hides.
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ManagedProcess } from '@kubefed/testing';
import WebSocket from 'ws';

/** The V8 profile (`Profiler.stop`'s result; the `.cpuprofile` format DevTools opens). */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

/** A stretch of consecutive samples in which the process never went idle. */
export interface BusyStretch {
  /** Milliseconds from the start of the profile. */
  readonly atMs: number;
  readonly ms: number;
  /** Frames by the time spent in them or below them within the stretch, most first: `[frame, ms]`. */
  readonly inclusive: readonly (readonly [string, number])[];
  /** Frames by the time spent in them alone, most first. */
  readonly self: readonly (readonly [string, number])[];
}

/** The Node options of a process to profile: an inspector on a free loopback port. */
export const INSPECTABLE = '--inspect=127.0.0.1:0';

/** Sampling, in microseconds (V8's default is 1,000). */
const SAMPLING_INTERVAL_US = 500;

/** One inspector session with one process's profiler. */
export class CpuProfiler {
  #next = 1;
  readonly #pending = new Map<number, (result: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const resolve = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      resolve?.(message.error === undefined ? message.result : new Error(message.error.message));
    });
  }

  /** Attaches to a process started with `--inspect`: the address is the one it printed. */
  static async attach(child: ManagedProcess): Promise<CpuProfiler> {
    const line = await child.waitForLine(/Debugger listening on ws:\/\//, { fromStart: true });
    const url = /ws:\/\/\S+/.exec(line)?.[0] ?? '';
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const profiler = new CpuProfiler(socket);
    await profiler.#call('Profiler.enable');
    await profiler.#call('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    return profiler;
  }

  async start(): Promise<void> {
    await this.#call('Profiler.start');
  }

  /** Stops the profile started last, writes it to `file` (open it in DevTools) and returns it. */
  async stop(file: string): Promise<CpuProfile> {
    const { profile } = (await this.#call('Profiler.stop')) as { profile: CpuProfile };
    await writeFile(file, JSON.stringify(profile));
    return profile;
  }

  close(): void {
    this.socket.close();
  }

  async #call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#next++;
    const result = new Promise<unknown>((resolve) => this.#pending.set(id, resolve));
    this.socket.send(JSON.stringify({ id, method, params }));
    const value = await result;
    if (value instanceof Error) throw new Error(`inspector ${method}: ${value.message}`);
    return value;
  }
}

/** The `count` longest stretches of `profile` in which the process never went idle, longest first. */
export function longestBusy(profile: CpuProfile, count: number, top = 12): BusyStretch[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const stretches: { from: number; to: number; atUs: number; us: number }[] = [];
  let t = 0;
  let open: { from: number; atUs: number } | undefined;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const busy = !idle.has(profile.samples[i] ?? 0);
    if (busy && open === undefined) open = { from: i, atUs: t };
    if (!busy && open !== undefined) {
      stretches.push({ from: open.from, to: i, atUs: open.atUs, us: t - open.atUs });
      open = undefined;
    }
  }
  if (open !== undefined) stretches.push({ from: open.from, to: profile.samples.length, atUs: open.atUs, us: t - open.atUs });
  stretches.sort((a, b) => b.us - a.us);
  return stretches.slice(0, count).map((s) => {
    const inclusive = new Map<string, number>();
    const self = new Map<string, number>();
    for (let i = s.from; i < s.to; i++) {
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      const leaf = profile.samples[i] ?? 0;
      const leafFrame = frameOf(byId.get(leaf));
      self.set(leafFrame, (self.get(leafFrame) ?? 0) + ms);
      const seen = new Set<string>();
      for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
        const frame = frameOf(byId.get(id));
        if (seen.has(frame)) continue;
        seen.add(frame);
        inclusive.set(frame, (inclusive.get(frame) ?? 0) + ms);
      }
    }
    return { atMs: s.atUs / 1000, ms: s.us / 1000, inclusive: ranked(inclusive, top), self: ranked(self, top) };
  });
}

/** What a profiled process did between two moments: busy and garbage-collecting time, and the functions most in it. */
export interface Activity {
  readonly busyMs: number;
  readonly gcMs: number;
  readonly self: readonly (readonly [string, number])[];
}

/**
 * What `profile` shows between `fromMs` and `toMs`, both `performance.now()` of this process.
 * V8 stamps its profiles with the monotonic clock, as `process.hrtime` reads it.
 */
export function activityIn(profile: CpuProfile, fromMs: number, toMs: number, top = 5): Activity {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const [from, to] = [monotonicUs(fromMs), monotonicUs(toMs)];
  const self = new Map<string, number>();
  let busyMs = 0;
  let gcMs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t >= to) continue;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const frame = frameOf(byId.get(profile.samples[i] ?? 0));
    if (frame === '(idle)') continue;
    busyMs += ms;
    if (frame === '(garbage collector)') gcMs += ms;
    self.set(frame, (self.get(frame) ?? 0) + ms);
  }
  return { busyMs, gcMs, self: ranked(self, top) };
}

/** `performance.now()` of this process on the monotonic clock, in microseconds. */
function monotonicUs(ms: number): number {
  return Number(HRTIME_AT_ORIGIN / 1000n) + (ms - PERFORMANCE_AT_ORIGIN) * 1000;
}
const PERFORMANCE_AT_ORIGIN = performance.now();
const HRTIME_AT_ORIGIN = process.hrtime.bigint();

/** The lines a benchmark prints for {@link longestBusy}'s stretches. */
export function describeBusy(stretches: readonly BusyStretch[]): string {
  const ms = (v: number): string => `${v.toFixed(0)} ms`;
  return stretches
    .map((s) =>
      [
        `  busy ${ms(s.ms)} from ${ms(s.atMs)}:`,
        `    inclusive: ${s.inclusive.map(([f, v]) => `${f} ${ms(v)}`).join('; ')}`,
        `    self: ${s.self.map(([f, v]) => `${f} ${ms(v)}`).join('; ')}`,
      ].join('\n'),
    )
    .join('\n');
}

/** The `top` frames of `times` by time, most first. */
function ranked(times: ReadonlyMap<string, number>, top: number): [string, number][] {
  return [...times].sort((a, b) => b[1] - a[1]).slice(0, top);
}

function frameOf(node: ProfileNode | undefined): string {
  if (node === undefined) return '?';
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === '') return functionName === '' ? '(anonymous)' : functionName;
  return `${functionName === '' ? '(anonymous)' : functionName} ${basename(url)}:${lineNumber + 1}`;
}
