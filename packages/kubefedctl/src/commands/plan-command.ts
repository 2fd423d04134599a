import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { readFileArg } from '../flag-parsers.js';
import { explainRsp, formatPlanJson, formatPlanTable, parseClusterList, parseClusterNumbers, parseRspYaml } from './plan.js';
import { gatherLivePlan } from './plan-live.js';

interface PlanFlags {
  namespace?: string;
  filename?: string;
  clusters?: string;
  current?: string;
  capacity?: string;
  key?: string;
  output?: 'json' | 'table';
}

const PLAN_EXAMPLES = `
Examples:
  # How would the RSP web in namespace demo divide its replicas right now?
  kubefedctl plan web -n demo

  # Offline, from a file: three clusters, 3 replicas running in a, capacity 5 in b
  kubefedctl plan -f rsp.yaml --clusters a,b,c --current a=3 --capacity b=5 -o json
`;

/** The plan of an RSP read from `flags.filename`, over the clusters the flags name (no cluster access). */
function offlinePlan(rspName: string | undefined, flags: PlanFlags & { filename: string }): ReturnType<typeof explainRsp> {
  if (rspName !== undefined) throw new UsageError('plan: give either an RSP name or -f <file>, not both');
  if (flags.clusters === undefined) throw new UsageError('plan -f: --clusters is required (the available clusters, e.g. --clusters a,b,c)');
  const rsp = parseRspYaml(readFileArg(flags.filename), flags.filename);
  const available = parseClusterList(flags.clusters);
  const current = flags.current === undefined ? undefined : parseClusterNumbers(flags.current, '--current');
  const capacity = flags.capacity === undefined ? undefined : parseClusterNumbers(flags.capacity, '--capacity');
  const ns = rsp.metadata.namespace ?? flags.namespace ?? 'default';
  return explainRsp(rsp, { available, current, capacity, key: flags.key ?? `${ns}/${rsp.metadata.name ?? ''}` });
}

/** The plan of the live RSP `rspName`, from the host's Ready clusters and member workloads. */
async function livePlan(
  rspName: string | undefined,
  flags: PlanFlags,
  cmd: Command,
  ctx: CommandContext,
): Promise<ReturnType<typeof explainRsp>> {
  if (rspName === undefined) throw new UsageError('plan: an RSP name (live) or -f <file> (offline) is required');
  for (const f of ['clusters', 'current', 'capacity'] as const) {
    if (flags[f] !== undefined) throw new UsageError(`--${f} is only valid with -f (offline planning)`);
  }
  const { host, out, kubefedNamespace } = ctx.connect(cmd);
  try {
    const live = await gatherLivePlan(
      host,
      { name: rspName, namespace: flags.namespace ?? host.defaultNamespace ?? 'default', kubefedNamespace },
      out,
    );
    return explainRsp(live.rsp, flags.key === undefined ? live.clusters : { ...live.clusters, key: flags.key });
  } finally {
    host.close();
  }
}

async function runPlan(rspName: string | undefined, flags: PlanFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  const out = ctx.output(cmd);
  const { filename } = flags;
  const explanation = filename !== undefined ? offlinePlan(rspName, { ...flags, filename }) : await livePlan(rspName, flags, cmd, ctx);
  out.raw(flags.output === 'json' ? formatPlanJson(explanation) : formatPlanTable(explanation));
}

/** Registers `kubefedctl plan` on `program`. */
export function addPlanCommand(program: Command, ctx: CommandContext): void {
  program
    .command('plan')
    .summary('Explain how a ReplicaSchedulingPreference divides replicas')
    .description(
      'Show how a ReplicaSchedulingPreference divides its replicas, and why: live (the RSP, Ready clusters and member workloads) or offline from a file.',
    )
    .argument('[rsp]', 'name of the ReplicaSchedulingPreference (live mode)')
    .option('-n, --namespace <namespace>', "namespace of the RSP (default: the context's namespace, else default)")
    .option('-f, --filename <file>', 'offline: read the RSP from this YAML file (no cluster access)')
    .option('--clusters <names>', 'offline: the available clusters, comma separated')
    .option('--current <pairs>', 'offline: replicas running per cluster, e.g. a=3,b=1')
    .option('--capacity <pairs>', 'offline: estimated capacity per cluster, e.g. a=5')
    .option('--key <key>', 'tie-break key (default: <namespace>/<name> of the RSP, as the controller uses)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .addHelpText('after', PLAN_EXAMPLES)
    .action(async (rsp: string | undefined, flags: PlanFlags, cmd: Command) => runPlan(rsp, flags, cmd, ctx));
}
