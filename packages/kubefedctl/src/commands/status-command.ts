import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { parseTimeout } from '../flag-parsers.js';
import { formatStatus, gatherStatus, terminalPaint } from './status.js';

interface StatusFlags {
  namespace?: string;
  allNamespaces?: boolean;
  watch?: boolean;
  interval: number;
  output?: 'wide' | 'json';
}

const STATUS_EXAMPLES = `
Examples:
  # Every federated object in the current namespace, by cluster
  kubefedctl status

  # One type everywhere, with per-cluster rows, remote status and placement
  kubefedctl status deployments -A -o wide

  # One object, redrawn whenever it changes (Ctrl-C to stop)
  kubefedctl status federateddeployments web -n demo --watch

  # Machine-readable: {"items": [{kind, namespace, name, generation, observedGeneration,
  #   propagation, reason, placement, clusters: [{name, status, remote}]}]}
  kubefedctl status -A -o json

Cluster status values: OK; Pending (placed, not reported yet); NotJoined (no such KubeFedCluster); KubeFed's reasons such as
CreationFailed, UpdateFailed, ClusterNotReady, AlreadyExists, ApplyOverridesFailed,
WaitingForRemoval (see docs/troubleshooting.md).
`;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

async function runStatus(
  target: { type: string | undefined; name: string | undefined },
  flags: StatusFlags,
  cmd: Command,
  ctx: CommandContext,
): Promise<void> {
  const { type, name } = target;
  const { io } = ctx;
  if (flags.namespace !== undefined && flags.allNamespaces === true)
    throw new UsageError('status: give either -n <namespace> or -A, not both');
  const { host, out, kubefedNamespace } = ctx.connect(cmd);
  const namespace = flags.allNamespaces === true ? undefined : (flags.namespace ?? host.defaultNamespace ?? 'default');
  const render = async (): Promise<string> => {
    const objects = await gatherStatus(host, { kubefedNamespace, type, name, namespace });
    if (flags.output === 'json') return `${JSON.stringify({ items: objects }, null, 2)}\n`;
    return formatStatus(objects, {
      wide: flags.output === 'wide',
      allNamespaces: namespace === undefined,
      ...(io.color === true ? { paint: terminalPaint } : {}),
    });
  };
  try {
    let last = await render();
    out.raw(last);
    if (flags.watch !== true) return;
    const stop = new AbortController();
    const off = io.onInterrupt?.(() => stop.abort()) ?? (() => {});
    try {
      for (;;) {
        await pause(flags.interval, stop.signal);
        if (stop.signal.aborted) break;
        const next = await render();
        if (next === last) continue;
        last = next;
        // On a terminal the table is redrawn in place; otherwise each version follows the last.
        out.raw(io.color === true ? `\x1b[2J\x1b[H${next}` : `--- ${new Date().toISOString()}\n${next}`);
      }
    } finally {
      off();
    }
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl status` on `program`. */
export function addStatusCommand(program: Command, ctx: CommandContext): void {
  program
    .command('status')
    .description("Show federated objects by member cluster: the Propagation condition, each cluster's status and what its members report")
    .argument(
      '[type]',
      'a federated type: FTC name (deployments.apps), kind or plural of the federated or target type; default every enabled type',
    )
    .argument('[name]', 'one object of that type')
    .option('-n, --namespace <namespace>', "namespace to list (default: the context's namespace, else default)")
    .option('-A, --all-namespaces', 'list every namespace')
    .option('-w, --watch', 'keep running and print the table again whenever it changes')
    .addOption(new Option('--interval <duration>', 'how often --watch looks (Go duration)').argParser(parseTimeout).default(2000, '2s'))
    .addOption(
      new Option('-o, --output <format>', 'wide: a row per cluster with remote status and placement; json: machine-readable').choices([
        'wide',
        'json',
      ]),
    )
    .addHelpText('after', STATUS_EXAMPLES)
    .action(async (type: string | undefined, name: string | undefined, flags: StatusFlags, cmd: Command) =>
      runStatus({ type, name }, flags, cmd, ctx),
    );
}
