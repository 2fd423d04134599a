import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RESOURCES } from '@kubefed/api';
import { isNotFound, type DynamicClient } from '@kubefed/client';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { KubefedctlError } from '../errors.js';
import type { Output } from '../output.js';
import { objectStatus } from './status.js';

interface DashboardFlags {
  port: number;
  address: string;
  open?: boolean;
  redisUrl?: string;
  queuePrefix?: string;
  metricsUrl?: string;
}

const EXAMPLES = `
Examples:
  # Serve the dashboard on a free loopback port and print its URL (the token in its #fragment)
  kubefedctl dashboard

  # A fixed port, and open the browser
  kubefedctl dashboard --port 8001 --open

  # Show each member's sync queue from the control plane's Redis
  kubefedctl dashboard --redis-url redis://127.0.0.1:6379

  # ... or from the controller manager's metrics endpoint (kubefed_sync_queue_jobs)
  kubefedctl dashboard --metrics-url http://127.0.0.1:9090/metrics

  # Reachable from other machines (plain HTTP: only on a network you trust)
  kubefedctl dashboard --address 0.0.0.0 --port 8001
`;

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535 (0 picks a free one).');
  return n;
}

/** An http(s) URL; one without a path gets `/metrics`. */
function parseMetricsUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidArgumentError(
      "expected the http(s) URL of the controller manager's metrics endpoint, e.g. http://127.0.0.1:9090/metrics.",
    );
  }
  if (url.pathname === '/') url.pathname = '/metrics';
  return url.toString();
}

/**
 * A page of the user's own (a 0700 directory, removed by the returned function) that sends the
 * browser on to `url`: the browser is started with the file's path, so the token in the URL's
 * fragment never shows in the process list that other users of the machine can read.
 */
export function redirectFile(url: string): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kubefedctl-dashboard-'));
  const file = join(dir, 'open.html');
  const target = JSON.stringify(url).replaceAll('<', '\\u003c');
  writeFileSync(file, `<!doctype html><meta charset="utf-8"><script>location.replace(${target})</script>\n`, { mode: 0o600 });
  return { file: pathToFileURL(file).toString(), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Opens `url` in the desktop's browser (xdg-open, open or start); a failure is only a warning. */
function openBrowser(url: string, out: Output): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', (err) => out.warn(`cannot open a browser (${command}): ${err.message}; open the URL yourself`));
  child.unref();
}

/** What the dashboard watches on the host: without these CRDs its watches would wait forever. */
const WATCHED = [
  ['kubefedclusters.core.kubefed.io', RESOURCES.kubeFedClusters],
  ['federatedtypeconfigs.core.kubefed.io', RESOURCES.federatedTypeConfigs],
  ['replicaschedulingpreferences.scheduling.kubefed.io', RESOURCES.replicaSchedulingPreferences],
] as const;

/** Refuses, naming them, a host that does not serve the KubeFed resources the dashboard watches. */
async function assertKubeFedServed(host: DynamicClient, kubefedNamespace: string): Promise<void> {
  const missing: string[] = [];
  for (const [name, gvr] of WATCHED) {
    try {
      await host.resource(gvr, name.startsWith('replicaschedulingpreferences') ? undefined : kubefedNamespace).list({ limit: 1 });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      missing.push(name);
    }
  }
  if (missing.length > 0)
    throw new KubefedctlError(`the host cluster at ${host.server} does not serve ${missing.join(', ')}`, {
      hint: 'install the KubeFed CRDs on the host (kubectl apply -k deploy/crds, or the Helm chart deploy/helm/kubefed) or choose the host context with --host-cluster-context',
    });
}

async function runDashboard(flags: DashboardFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  const { host, out, kubefedNamespace } = ctx.connect(cmd);
  try {
    await assertKubeFedServed(host, kubefedNamespace);
    // Loaded here, not at the top: the dashboard brings the controllers and the queue client
    // (about 0.4 s of CPU), which every other command would pay at start.
    const { startDashboard } = await import('@kubefed/dashboard');
    const dashboard = await startDashboard({
      host,
      kubefedNamespace,
      summarize: objectStatus,
      address: flags.address,
      port: flags.port,
      redisUrl: flags.redisUrl,
      queuePrefix: flags.queuePrefix,
      metricsUrl: flags.metricsUrl,
    });
    out.info(`Dashboard of the federation at ${host.server}: ${dashboard.url}`);
    out.info(
      `Token (the URL carries it; the page asks for it without; API clients send Authorization: Bearer <token>): ${dashboard.token}`,
    );
    out.progress('Press Ctrl-C to stop.');
    const opened = flags.open === true ? redirectFile(dashboard.url) : undefined;
    if (opened !== undefined) openBrowser(opened.file, out);
    await new Promise<void>((resolve) => {
      const off = ctx.io.onInterrupt?.(() => {
        off?.();
        resolve();
      });
      if (off === undefined) resolve();
    });
    opened?.remove();
    await dashboard.close();
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl dashboard` on `program`. */
export function addDashboardCommand(program: Command, ctx: CommandContext): void {
  program
    .command('dashboard')
    .description(
      'Serve a read-only web UI of the federation from the host context: member clusters, federated objects by cluster, replica scheduling; live from watches. Loopback only unless --address says otherwise; every address requires the printed token (the printed URL logs the browser in). Stops on Ctrl-C.',
    )
    .addOption(new Option('--port <port>', 'port to listen on (0: a free one)').argParser(parsePort).default(0))
    .option('--address <address>', 'address to bind (the printed token is required on every address)', '127.0.0.1')
    .option('--open', "open the page in the desktop's browser")
    .option('--redis-url <url>', "the control plane's Redis: show each member's sync queue (waiting, active, delayed, failed)")
    .option('--queue-prefix <prefix>', "the controller manager's --queue-prefix (default BullMQ's)")
    .addOption(
      new Option(
        '--metrics-url <url>',
        "the controller manager's metrics endpoint (http://host:9090/metrics): show each member's sync queue from its kubefed_sync_queue_jobs gauge",
      )
        .argParser(parseMetricsUrl)
        .conflicts('redisUrl'),
    )
    .addHelpText('after', EXAMPLES)
    .action(async (flags: DashboardFlags, command: Command) => runDashboard(flags, command, ctx));
}
