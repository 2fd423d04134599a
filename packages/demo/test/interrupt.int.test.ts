// `npm run demo` as a process, interrupted with SIGINT (Ctrl-C) while it starts: it says it is
// stopping, every process it started ends and its temporary files are gone, the kubeconfig with
// the clusters' credentials among them. While it waits it says what for and how far it is.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManagedProcess, sourceEntry } from '@kubefed/testing';
import { afterEach, describe, expect, it } from 'vitest';

const DEMO = 'packages/demo/src/main.ts';

/** The pids of live (not zombie) processes whose environment holds `marker`. */
function processesMarked(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!environ.split('\0').includes(marker)) continue;
      const state = /^\d+ \(.*\) (\S)/s.exec(fs.readFileSync(`/proc/${entry}/stat`, 'latin1'))?.[1];
      if (state !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** A private TMPDIR, sharing tsx's compile cache so that the children start as fast as usual. */
function privateTmpdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-interrupt-'));
  const cache = `tsx-${os.userInfo().uid}`;
  fs.mkdirSync(path.join(os.tmpdir(), cache), { recursive: true });
  fs.symlinkSync(path.join(os.tmpdir(), cache), path.join(dir, cache));
  return dir;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Starts the demo with its own TMPDIR and an environment marker its descendants inherit. */
function startDemo(): { demo: ManagedProcess; tmp: string; marker: string } {
  const tmp = privateTmpdir();
  const marker = `KUBEFED_DEMO_INTERRUPT_TEST=${path.basename(tmp)}`;
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, KUBEFED_DEMO_INTERRUPT_TEST: path.basename(tmp) };
  delete env['KUBECONFIG'];
  const demo = new ManagedProcess('npm run demo', [...sourceEntry(DEMO), '--timeout', '4m'], { env });
  cleanup.push(async () => {
    await demo.kill();
    for (const pid of processesMarked(marker)) process.kill(pid, 'SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return { demo, tmp, marker };
}

/** Sends SIGINT, and checks the demo said it is stopping, ended with 130 and left no process and no temporary file. */
async function interruptAndCheck(started: ReturnType<typeof startDemo>): Promise<void> {
  const { demo, tmp, marker } = started;
  expect(processesMarked(marker).length).toBeGreaterThan(0);
  expect(await demo.stop('SIGINT', 90_000)).toBe(130);
  const out = demo.lines.join('\n');
  expect(out).toContain('SIGINT: stopping every process the demo started and removing its temporary files');
  expect(out).toContain('stopped: every process the demo started has ended');
  await expect.poll(() => processesMarked(marker), { timeout: 10_000 }).toEqual([]);
  expect(fs.readdirSync(tmp).filter((f) => !f.startsWith('tsx-'))).toEqual([]);
}

describe('npm run demo interrupted', () => {
  it('stops at once when interrupted before the clusters are up, leaving no process and no temporary file', async () => {
    const started = startDemo();
    await started.demo.waitForLine(/starting the local federation/, { fromStart: true, timeoutMs: 60_000 });
    await interruptAndCheck(started);
  }, 180_000);

  it('says how many members have joined while it waits, and on Ctrl-C during the joins removes the kubeconfig and every process', async () => {
    const started = startDemo();
    const { demo } = started;
    const kubeconfigLine = await demo.waitForLine(/^Kubeconfig: /, { fromStart: true, timeoutMs: 170_000 });
    const kubeconfig = /^Kubeconfig: (\S+)/.exec(kubeconfigLine)?.[1] ?? '';
    expect(kubeconfig.startsWith(started.tmp)).toBe(true);
    expect(fs.readFileSync(kubeconfig, 'utf8')).toContain('contexts:');
    // The Ctrl-C block comes before the long waits.
    const tryIndex = demo.lines.findIndex((l) => l.startsWith('Ctrl-C stops the demo at any moment'));
    expect(tryIndex).toBeGreaterThan(demo.lines.indexOf(kubeconfigLine));
    await demo.waitForLine(/… waiting for kubefedctl join of \d more member\(s\): \d\/3 joined/, { fromStart: true, timeoutMs: 60_000 });
    await interruptAndCheck(started);
    expect(fs.existsSync(kubeconfig)).toBe(false);
    // The count of joined members only goes up, and never past the total.
    const counts = demo.lines.flatMap((l) => [...(/(\d+)\/3 joined/.exec(l)?.slice(1) ?? [])]).map(Number);
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((n, i) => n <= 3 && n >= (counts[i - 1] ?? 0))).toBe(true);
  }, 300_000);
});
