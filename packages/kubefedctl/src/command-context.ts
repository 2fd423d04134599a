import fs from 'node:fs';
import type { FederatedTypeConfig } from '@kubefed/api';
import type { DynamicClient, Kubeconfig } from '@kubefed/client';
import type { Command } from 'commander';
import type { BuildInfo } from './commands/version.js';
import { clientForContext, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
import { type CliIo, levelForVerbosity, Output, TRACE_VERBOSITY } from './output.js';
import { syncLeastPrivilegeRoles } from './sync-least-privilege.js';

/** The process-facing inputs of `run` (cli.ts). */
export interface RunIo extends CliIo {
  /** Version information for `kubefedctl version`; default: unknown commit/date. */
  buildInfo?: () => BuildInfo;
  /** Timeout of each API request in ms; default 20 000. */
  requestTimeoutMs?: number;
  /** Colour in tables (stdout is a terminal and NO_COLOR is unset); default false. */
  color?: boolean;
  /**
   * Subscribes to an interrupt (SIGINT/SIGTERM, or standard output closed by its reader) while a
   * command runs until stopped (`status --watch`, `dashboard`); returns the unsubscribe function.
   * Default none: such commands stop at once.
   */
  onInterrupt?: (handler: () => void) => () => void;
  /** The name help and usage show (`kubectl kubefed` as the kubectl plugin: `invocationName` in help-format.ts); default `kubefedctl`. */
  programName?: string;
  /** Reads all of standard input (`federate -f -`); default: file descriptor 0. */
  readStdin?: () => string;
}

/** The options every command inherits (KubeFed's global flags, on the root command). */
export interface GlobalOptions {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  /** `--v=N` (klog verbosity). */
  v?: number;
  /** `--verbose` (and bare `-v`): the same as `--v=6`. */
  verbose?: boolean;
  /** `--dry-run`: mutating commands write nothing and print what they would do. */
  dryRun?: boolean;
}

/** The host cluster of one run of a command, with what the global flags say about it. The command closes `host`. */
export interface HostConnection {
  readonly globals: GlobalOptions;
  readonly out: Output;
  readonly kubeconfig: Kubeconfig;
  /** The kubeconfig context of the host (`--host-cluster-context`, else the current context). */
  readonly hostContext: string;
  readonly host: DynamicClient;
  /** `--kubefed-namespace`. */
  readonly kubefedNamespace: string;
  /** The global `--dry-run`. */
  readonly dryRun: boolean;
  /**
   * Keeps the least-privilege member roles in step with the FederatedTypeConfigs of the host plus
   * `pending` ones about to be written (see `syncLeastPrivilegeRoles`). Run before an FTC is
   * written (the controller manager watches a type in the members as soon as it is Enabled), and
   * again when the command failed after that.
   */
  readonly leastPrivilege: (pending?: readonly FederatedTypeConfig[]) => Promise<void>;
}

/** Default timeout of one API request. */
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * What every command needs, once: the process's input and output, the global flags of a run,
 * its printer and kubeconfig, and clients of its contexts. Each `add<Name>Command(program, ctx)`
 * receives the same one.
 */
export class CommandContext {
  constructor(readonly io: RunIo) {}

  /** Timeout of each API request in ms. */
  get requestTimeoutMs(): number {
    return this.io.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  }

  /** The global flags of the run of `cmd`. */
  globals(cmd: Command): GlobalOptions {
    return cmd.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
  }

  /** The printer at the level the global flags ask for (see {@link levelForVerbosity}). */
  output(cmd: Command): Output {
    return this.outputFor(this.globals(cmd));
  }

  /** The printer for these global flags. */
  outputFor(globals: Pick<GlobalOptions, 'v' | 'verbose'>): Output {
    return new Output(this.io, levelForVerbosity(Math.max(globals.v ?? 0, globals.verbose === true ? TRACE_VERBOSITY : 0)));
  }

  /** The kubeconfig as kubectl finds it: `--kubeconfig`, else `KUBECONFIG`, else `~/.kube/config`. */
  kubeconfig(cmd: Command): Kubeconfig {
    const globals = this.globals(cmd);
    return loadKubeconfig({ kubeconfig: globals.kubeconfig, KUBECONFIG: this.io.env['KUBECONFIG'], home: this.io.env['HOME'] });
  }

  /** A client of one context; `clusterName` names the cluster in errors (default: the context). */
  client(kubeconfig: Kubeconfig, context: string, clusterName?: string): DynamicClient {
    return clientForContext(kubeconfig, context, {
      timeoutMs: this.requestTimeoutMs,
      ...(clusterName === undefined ? {} : { clusterName }),
    });
  }

  /** Connects to the host (`--kubeconfig`, `--host-cluster-context`). */
  connect(cmd: Command): HostConnection {
    const globals = this.globals(cmd);
    const out = this.outputFor(globals);
    const kubeconfig = this.kubeconfig(cmd);
    const hostContext = resolveContextName(kubeconfig, globals.hostClusterContext, '--host-cluster-context');
    const host = clientForContext(kubeconfig, hostContext, { timeoutMs: this.requestTimeoutMs });
    out.debug(`host context "${hostContext}" (${host.server})`);
    const names = new Set(kubeconfig.contexts().map((c) => c.name));
    return {
      globals,
      out,
      kubeconfig,
      hostContext,
      host,
      kubefedNamespace: globals.kubefedNamespace,
      dryRun: globals.dryRun === true,
      leastPrivilege: (pending) =>
        syncLeastPrivilegeRoles(
          host,
          {
            kubefedNamespace: globals.kubefedNamespace,
            hostClusterName: hostContext,
            timeoutMs: this.requestTimeoutMs,
            pendingFtcs: pending,
            adminClientFor: (cluster) => (names.has(cluster) ? this.client(kubeconfig, cluster, cluster) : undefined),
          },
          out,
        ),
    };
  }

  /** All of standard input. */
  readStdin(): string {
    return this.io.readStdin?.() ?? fs.readFileSync(0, 'utf8');
  }
}
