import fs from 'node:fs';
import { DEFAULT_FEDERATED_GROUP } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../errors.js';
import { parseFederateInput } from '../federate-objects.js';
import { federateDocuments, federateResource } from './federate.js';

interface FederateFlags {
  namespace?: string;
  output?: string;
  enableType?: boolean;
  contents?: boolean;
  includeOwned?: boolean;
  filename?: string;
  skipApiResources?: string;
  federatedGroup: string;
}

const FEDERATE_EXAMPLES = `
Examples:
  # Federate the ConfigMap web-config of namespace demo to every member cluster
  kubefedctl federate configmaps web-config -n demo

  # Same, enabling the type first when its FederatedTypeConfig is missing
  kubefedctl federate deployments.apps web -n demo --enable-type

  # Federate namespace demo and everything in it, except what each cluster makes for itself
  # (objects owned by a controller, such as a Deployment's ReplicaSets and Pods; kube-root-ca.crt;
  # the default ServiceAccount; service account tokens; endpoints, EndpointSlices, events)
  kubefedctl federate namespace demo --contents --enable-type

  # Same, federating objects owned by a controller too
  kubefedctl federate namespace demo --contents --include-owned

  # Print the FederatedDeployment, write nothing
  kubefedctl federate deployments.apps web -n demo -o yaml

  # List what would be created (and enabled), write nothing
  kubefedctl federate namespace demo --contents --enable-type --dry-run

  # Convert manifests offline (no cluster access)
  kubectl get deploy web -n demo -o yaml | kubefedctl federate -f -
`;

/** `---\n<yaml>` per object: KubeFed's output format of `federate -o yaml` and `-f`. */
export function federatedYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join('');
}

function validate(type: string | undefined, name: string | undefined, flags: FederateFlags): void {
  if (flags.output !== undefined && flags.output !== 'yaml')
    throw new UsageError(`Invalid value for --output: ${flags.output}`, { hint: 'the only output format is yaml' });
  if (flags.filename !== undefined) {
    const args = [type, name].filter((a): a is string => a !== undefined);
    if (args.length > 0) throw new UsageError(`Flag '--filename' does not take any args. Got args: [${args.join(' ')}]`);
    return;
  }
  if (type === undefined)
    throw new UsageError('TYPE-NAME is required', { hint: 'e.g. kubefedctl federate configmaps my-config -n my-namespace' });
  if (name === undefined) throw new UsageError('RESOURCE-NAME is required', { hint: `e.g. kubefedctl federate ${type} <name>` });
  if (flags.enableType === true && flags.output === 'yaml')
    throw new UsageError(`Flag '--enable-type' cannot be used with '--output [yaml]'`);
  if (flags.includeOwned === true && flags.contents !== true)
    throw new UsageError(`Flag '--include-owned' can only be used with '--contents'.`, {
      hint: `e.g. kubefedctl federate namespace ${name} --contents --include-owned`,
    });
}

function readInput(filename: string, ctx: CommandContext): string {
  try {
    return filename === '-' ? ctx.readStdin() : fs.readFileSync(filename, 'utf8');
  } catch (e) {
    throw new UsageError(
      `-f ${filename}: cannot read ${filename === '-' ? 'standard input' : 'the file'}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

async function runFederate(
  type: string | undefined,
  name: string | undefined,
  flags: FederateFlags,
  cmd: Command,
  ctx: CommandContext,
): Promise<void> {
  validate(type, name, flags);
  if (flags.filename !== undefined) {
    const out = ctx.output(cmd);
    const docs = parseFederateInput(readInput(flags.filename, ctx), flags.filename === '-' ? 'standard input' : flags.filename);
    out.raw(federatedYaml(federateDocuments(docs, { federatedGroup: flags.federatedGroup }, out)));
    return;
  }
  const connection = ctx.connect(cmd);
  const { host, out, kubefedNamespace, leastPrivilege } = connection;
  let granted = false;
  try {
    const dryRun = connection.dryRun || flags.output === 'yaml';
    const { results } = await federateResource(
      host,
      {
        type: type ?? '',
        name: name ?? '',
        namespace: flags.namespace ?? host.defaultNamespace ?? 'default',
        kubefedNamespace,
        enableType: flags.enableType === true,
        contents: flags.contents === true,
        includeOwned: flags.includeOwned === true,
        dryRun,
        federatedGroup: flags.federatedGroup,
        skipApiResources: (flags.skipApiResources ?? '').split(',').filter((s) => s.trim() !== ''),
        // Members are granted a type before its FTC exists: the controller manager watches it at once.
        beforeEnable: async (ftc) => {
          granted = true;
          await leastPrivilege([ftc]);
        },
      },
      out,
    );
    if (flags.output === 'yaml') {
      out.raw(federatedYaml(results.map((r) => r.object)));
    } else if (dryRun) {
      for (const r of results) out.info(`${r.description} created (dry run)`);
      out.info('dry run: nothing was written');
    }
  } catch (e) {
    // Take back the grant of a type whose FTC may not have been written.
    if (granted) await leastPrivilege();
    throw e;
  } finally {
    host.close();
  }
}

/** Registers `kubefedctl federate` (docs/kubefed-compatibility.md §3.6) on the program. */
export function addFederateCommand(program: Command, ctx: CommandContext): void {
  program
    .command('federate')
    .description(
      'Federate a resource of the host: create its Federated<Kind> (template = the resource, placement = all clusters); or convert manifests offline with -f.',
    )
    .argument('[type-name]', 'the target type, e.g. configmaps or deployments.apps')
    .argument('[resource-name]', 'the resource to federate')
    .option('-n, --namespace <namespace>', "namespace of the resource (default: the context's namespace, else default)")
    .option('-o, --output <format>', 'print the federated objects as yaml instead of creating them')
    .option('-t, --enable-type', 'enable the type (kubefedctl enable) when its FederatedTypeConfig is missing')
    .option(
      '-c, --contents',
      'only for namespaces: also federate the resources in the namespace, except what each cluster makes for itself (listed as skipped)',
    )
    .option(
      '--include-owned',
      'with --contents: also federate objects owned by a controller (ownerReferences[].controller), e.g. Pods of a ReplicaSet',
    )
    .option('-f, --filename <file>', 'convert the resources of this YAML file (- for standard input) offline and print them')
    .option(
      '-s, --skip-api-resources <names>',
      'with --contents: comma-separated types (names, kinds, plural.group or whole groups) to leave out',
    )
    .option(
      '--federated-group <group>',
      'group of the federated type when it is enabled or assumed (no FederatedTypeConfig)',
      DEFAULT_FEDERATED_GROUP,
    )
    .addHelpText('after', FEDERATE_EXAMPLES)
    .action(async (type: string | undefined, name: string | undefined, flags: FederateFlags, cmd: Command) =>
      runFederate(type, name, flags, cmd, ctx),
    );
}
