import { DEFAULT_FEDERATED_GROUP, DEFAULT_FEDERATED_VERSION } from '@kubefed/api';
import { type Command, Option } from 'commander';
import { stringify } from 'yaml';
import type { CommandContext, HostConnection } from '../command-context.js';
import { type EnableRequest, parseEnableTypeDirectives } from '../enable-directive.js';
import { KubefedctlError, UsageError } from '../errors.js';
import { readFileArg } from '../flag-parsers.js';
import { TypeNotFoundError } from '../type-lookup.js';
import { applyEnable, DEFAULT_TYPE_NAMES, type EnableOptions, type EnableResult, enableType } from './enable.js';

interface EnableFlags {
  defaultTypes?: boolean;
  federatedGroup: string;
  federatedVersion: string;
  version?: string;
  output?: 'yaml';
  filename?: string;
}

const ENABLE_EXAMPLES = `
Examples:
  # Federate Deployments: creates federateddeployments.types.kubefed.io and FTC deployments.apps
  kubefedctl enable deployments.apps

  # Enable KubeFed's default set of types
  kubefedctl enable --default-types

  # Print the FederatedTypeConfig and the CRD, write nothing
  kubefedctl enable configmaps -o yaml

  # Enable the type of a KubeFed EnableTypeDirective file
  kubefedctl enable -f config/enabletypedirectives/deployments.apps.yaml

  # Show what enable would write, write nothing
  kubefedctl enable deployments.apps --dry-run
`;

/** The types `enable` was asked for: the argument, `--default-types` or the directives of `-f`. */
function enableRequests(type: string | undefined, flags: EnableFlags, cmd: Command): EnableRequest[] {
  if (flags.filename !== undefined) {
    const given = ['federatedGroup', 'federatedVersion', 'version', 'defaultTypes'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
    if (type !== undefined || given.length > 0) {
      throw new UsageError(
        'enable -f: the type and its versions come from the file; give no type, --default-types, --version, --federated-group or --federated-version with it',
      );
    }
    return parseEnableTypeDirectives(readFileArg(flags.filename), flags.filename);
  }
  if (flags.defaultTypes === true && type !== undefined) throw new UsageError('enable: give either a type or --default-types, not both');
  if (flags.defaultTypes !== true && type === undefined) {
    throw new UsageError('enable: a type is required', {
      hint: 'e.g. kubefedctl enable deployments.apps, kubefedctl enable --default-types or kubefedctl enable -f <directive.yaml>',
    });
  }
  return (type === undefined ? DEFAULT_TYPE_NAMES : [type]).map((t) => ({
    type: t,
    targetVersion: flags.version,
    federatedGroup: flags.federatedGroup,
    federatedVersion: flags.federatedVersion,
  }));
}

async function runEnable(type: string | undefined, flags: EnableFlags, cmd: Command, ctx: CommandContext): Promise<void> {
  const requests = enableRequests(type, flags, cmd);
  const connection = ctx.connect(cmd);
  const { host, out } = connection;
  try {
    const dryRun = connection.dryRun || flags.output === 'yaml';
    const optionsOf = (r: EnableRequest): EnableOptions => ({
      ...r,
      kubefedNamespace: connection.kubefedNamespace,
      targetVersion: r.targetVersion,
      dryRun,
    });
    const results: { request: EnableRequest; result: EnableResult }[] = [];
    const missing: string[] = [];
    for (const request of requests) {
      try {
        results.push({ request, result: await enableType(host, request.type, { ...optionsOf(request), dryRun: true }, out) });
      } catch (e) {
        // --default-types carries on past a type the host does not serve, and fails at the end.
        if (!(e instanceof TypeNotFoundError) || flags.defaultTypes !== true) throw e;
        out.warn(`skipping ${request.type}: the host does not serve it`);
        missing.push(request.type);
      }
    }
    if (flags.output === 'yaml') {
      out.raw(
        results.map(({ result: r }) => `---\n${stringify(r.ftc, { lineWidth: 0 })}---\n${stringify(r.crd, { lineWidth: 0 })}`).join(''),
      );
      return;
    }
    await applyEnables(
      connection,
      results.map((r) => ({ result: r.result, options: optionsOf(r.request) })),
      dryRun,
    );
    if (missing.length > 0) {
      throw new KubefedctlError(
        `enabled ${results.length} of ${DEFAULT_TYPE_NAMES.length} default types; the host does not serve: ${missing.join(', ')}`,
        {
          hint: 'list the served types with "kubectl api-resources"',
        },
      );
    }
  } finally {
    host.close();
  }
}

/** Writes the computed objects (or, in a dry run, prints what it would write), keeping least-privilege roles in step. */
async function applyEnables(
  connection: HostConnection,
  work: { result: EnableResult; options: EnableOptions }[],
  dryRun: boolean,
): Promise<void> {
  const { host, out } = connection;
  if (dryRun) {
    for (const w of work) await applyEnable(host, w.result, w.options, out);
    out.info('dry run: nothing was written');
    return;
  }
  // Grant first: the controller manager watches a type in the members as soon as its FTC is Enabled.
  await connection.leastPrivilege(work.map((w) => w.result.ftc));
  let applied = 0;
  try {
    for (const w of work) {
      await applyEnable(host, w.result, w.options, out);
      applied++;
    }
  } finally {
    // Take back the grants of types whose FTC was not written.
    if (applied < work.length) await connection.leastPrivilege();
  }
}

/** Registers `kubefedctl enable` (docs/kubefed-compatibility.md §3.4) on `program`. */
export function addEnableCommand(program: Command, ctx: CommandContext): void {
  program
    .command('enable')
    .description(
      'Enable federation of a type: create the Federated<Kind> CRD and the FederatedTypeConfig in the host (the type is looked up by plural, plural.group, singular, short name or kind).',
    )
    .argument('[type]', 'the target type, e.g. deployments.apps')
    .option(
      '--default-types',
      "enable KubeFed's default set of types; they include clusterroles, clusterrolebindings and secrets, which let a least-privilege member token grant itself cluster-admin (enable warns)",
    )
    .option(
      '-f, --filename <file>',
      'enable the types of KubeFed EnableTypeDirectives in this YAML file (the type and versions come from the file)',
    )
    .option('--federated-group <group>', 'API group of the federated type', DEFAULT_FEDERATED_GROUP)
    .option('--federated-version <version>', 'API version of the federated type', DEFAULT_FEDERATED_VERSION)
    .option('--version <version>', "version of the target type (default: the group's preferred version)")
    .addOption(
      new Option('-o, --output <format>', 'print the FederatedTypeConfig and CRD instead of writing them (implies --dry-run)').choices([
        'yaml',
      ]),
    )
    .addHelpText('after', ENABLE_EXAMPLES)
    .action(async (type: string | undefined, flags: EnableFlags, cmd: Command) => runEnable(type, flags, cmd, ctx));
}
