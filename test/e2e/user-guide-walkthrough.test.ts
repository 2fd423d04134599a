// The walk-through of docs/user-guide.md, run step by step as a user would (#41): the steps,
// their commands, files and expected outputs are read from the page itself
// (support/walkthrough.ts), so the page cannot drift from what this test runs. Every command
// runs in bash in a temporary directory, with the environment its earlier commands exported;
// kube-sim, redis-server and the controller manager run in the background as in their own
// terminals and are stopped (Ctrl-C) at the end, also when a step fails.
//
// What the test changes in the page's commands, and why (nothing else):
// - `npx <bin>` runs as `<bin>` with the repository's node_modules/.bin first on the PATH, the
//   equivalent the page gives under "Running kubefedctl" (npx in a directory outside the
//   repository would look the name up in the registry instead);
// - `deploy/` of the commands "from the repository root" is a symlink to the repository's;
// - redis-server gets a free port instead of 6379, and REDIS_URL (the controller manager's
//   default --redis-url) names it: other test files on this machine take a server answering
//   at 6379 for the shared Redis of the suite;
// - the controller manager gets `--health-addr` and `--metrics-addr` on free loopback ports, as
//   the page says to do when 8080 and 9090 are taken (other processes of the suite may hold them).
//
// Reads (`kubectl get`, `kubefedctl status` and `plan`) are polled until they print what the page
// shows: propagation, health checks and drift correction happen some time after the command
// before them. Everything else runs once and must exit 0 printing what the page shows, if anything.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually, REPO_ROOT, substrateFromEnvironment } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ShellResult, ShellSession } from './support/shell-session.js';
import { normaliseOutput, oneLine, parseWalkthrough, type WalkthroughCommand } from './support/walkthrough.js';

const steps = parseWalkthrough(readFileSync(path.join(REPO_ROOT, 'docs', 'user-guide.md'), 'utf8'));

/** How long a read may take to print what the page shows (a busy 2-core machine, sources run through tsx). */
const READ_TIMEOUT_MS = 90_000;
/** How long a background process may take to be ready. */
const START_TIMEOUT_MS = 120_000;

/** The workspace bins the page runs with npx. */
const WORKSPACE_BINS = ['kubefedctl', 'kube-sim', 'kubefed-controller-manager'];
/** The programs the page starts in a terminal of their own: they run in the background until the end. */
const LONG_RUNNING = ['kube-sim', 'redis-server', 'kubefed-controller-manager'];

/** A free TCP port on 127.0.0.1 (the kernel's pick; free again once this returns). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A read of the state: polled until it prints what the page shows. */
function isRead(command: string): boolean {
  return /^kubectl\b.*\sget\s/.test(command) || /^kubefedctl\s+(status|plan)\b/.test(command);
}

/** The command as this test runs it: `npx <workspace bin>` as `<bin>` (see the top of the file). */
function withoutNpx(command: string): string {
  const bin = /^npx\s+(\S+)/.exec(command)?.[1];
  return bin !== undefined && WORKSPACE_BINS.includes(bin) ? command.replace(/^npx\s+/, '') : command;
}

/** The program a command runs: its first word. */
function programOf(command: string): string {
  return /^\S+/.exec(command)?.[0] ?? '';
}

/** What went wrong in a step, with the command and both outputs. */
function report(step: number, command: WalkthroughCommand, result: ShellResult, problem: string): string {
  return [
    `step ${step}, docs/user-guide.md line ${command.line}: \`${oneLine(command.command)}\` ${problem}`,
    '--- the page shows:',
    command.expected ?? '(no output)',
    `--- it printed (exit code ${result.code}):`,
    result.stdout.trimEnd() || '(nothing)',
    '--- on stderr:',
    result.stderr.trimEnd() || '(nothing)',
  ].join('\n');
}

/** Whether `result` is what the page shows for `command`; else why not. */
function mismatch(command: WalkthroughCommand, result: ShellResult): string | undefined {
  if (result.code !== 0) return 'failed';
  if (command.expected === undefined) return isRead(command.command) && result.stdout.trim() === '' ? 'printed nothing' : undefined;
  return normaliseOutput(result.stdout) === normaliseOutput(command.expected) ? undefined : 'printed something else';
}

describe.skipIf(substrateFromEnvironment() === 'real')('the walk-through of docs/user-guide.md (its clusters are kube-sim)', () => {
  let dir: string | undefined;
  let session: ShellSession | undefined;
  let failed: number | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'user-guide-walkthrough-'));
    symlinkSync(path.join(REPO_ROOT, 'deploy'), path.join(dir, 'deploy'));
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.join(REPO_ROOT, 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}` };
    // The reader's own settings do not belong in the walk-through: it sets what it needs itself.
    for (const name of ['KUBECONFIG', 'REDIS_URL']) delete env[name];
    session = new ShellSession(dir, env);
  });

  afterAll(async () => {
    await session?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function shell(): ShellSession {
    if (session === undefined) throw new Error('the session did not start');
    return session;
  }

  /** Starts a long-running command of the page in the background and waits until it is ready. */
  async function startInBackground(text: string): Promise<void> {
    const program = programOf(text);
    switch (program) {
      case 'kube-sim': {
        // It prints `cluster <name> ready at <url>` once every cluster listens and the kubeconfig is written.
        const proc = shell().start(program, text);
        await proc.waitForLine(/^cluster \S+ ready at /, { timeoutMs: START_TIMEOUT_MS });
        return;
      }
      case 'redis-server': {
        const port = await freePort();
        if (!/--port 6379\b/.test(text)) throw new Error('redis-server does not name --port 6379, which this test replaces');
        const proc = shell().start(program, text.replace(/--port 6379\b/, `--port ${port}`));
        shell().export('REDIS_URL', `redis://127.0.0.1:${port}`);
        await proc.waitForLine(/Ready to accept connections/, { timeoutMs: START_TIMEOUT_MS });
        return;
      }
      case 'kubefed-controller-manager': {
        const [health, metrics] = [await freePort(), await freePort()];
        const proc = shell().start(program, `${text} --health-addr 127.0.0.1:${health} --metrics-addr 127.0.0.1:${metrics}`);
        // Ready once it reaches the host: /readyz answers 200.
        await eventually(
          async () => {
            if (!proc.running) throw new Error(`it exited; last lines:\n${proc.tail()}`);
            const res = await fetch(`http://127.0.0.1:${health}/readyz`);
            if (res.status !== 200) throw new Error(`/readyz answers ${res.status}; last lines:\n${proc.tail()}`);
          },
          { timeoutMs: START_TIMEOUT_MS, intervalMs: 500, message: `${program} was not ready` },
        );
        return;
      }
      default:
        throw new Error(`no way to start ${program} in the background`);
    }
  }

  /** Runs a command of the page once, or, for a read, until it prints what the page shows. */
  async function runCommand(step: number, command: WalkthroughCommand, text: string): Promise<void> {
    const once = async (): Promise<void> => {
      const result = await shell().run(text);
      const problem = mismatch(command, result);
      if (problem !== undefined) throw new Error(report(step, command, result, problem));
    };
    if (!isRead(text)) return once();
    await eventually(once, {
      timeoutMs: READ_TIMEOUT_MS,
      intervalMs: 500,
      message: `step ${step}: the read did not print what the page shows`,
    });
  }

  it('finds the steps of the walk-through, numbered from 1', () => {
    expect(steps.map((s) => s.number)).toEqual(steps.map((_, i) => i + 1));
    expect(steps.length).toBeGreaterThanOrEqual(13);
  });

  // No retry (CI retries integration tests once): a step continues from the state the steps
  // before it left, and running one again (a second join) is not what the page says.
  it.for(steps.map((step) => [step.number, step.title, step] as const))(
    'step %i (%s) does what the page says',
    { timeout: 300_000, retry: 0 },
    async ([number, , { items }], ctx) => {
      if (failed !== undefined) ctx.skip(`step ${failed} failed`);
      try {
        for (const item of items) {
          if (item.kind === 'file') {
            writeFileSync(path.join(dir ?? '', item.name), item.content);
            continue;
          }
          const text = withoutNpx(item.command);
          if (!LONG_RUNNING.includes(programOf(text))) await runCommand(number, item, text);
          else
            await startInBackground(text).catch((err: unknown) => {
              throw new Error(`step ${number}, docs/user-guide.md line ${item.line}: \`${oneLine(item.command)}\` did not start`, {
                cause: err,
              });
            });
        }
      } catch (err) {
        failed = number;
        throw err;
      }
    },
  );
});
