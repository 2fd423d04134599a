/**
 * klog's flags (k8s.io/klog/v2 `InitFlags`, and component-base's `--log-flush-frequency`) that
 * KubeFed's kubefedctl and controller manager accepted and ours have no use for: logs always go
 * to the process's own stream, there are no log files and no per-module verbosity. `true`: the
 * flag takes a value (`--vmodule x` or `--vmodule=x`); `false`: a boolean (`--logtostderr` or
 * `--logtostderr=false`, never a separate value, as pflag reads it). Names are in the `-` form.
 */
const IGNORED_KLOG_FLAGS: ReadonlyMap<string, boolean> = new Map([
  ['add-dir-header', false],
  ['alsologtostderr', false],
  ['log-backtrace-at', true],
  ['log-dir', true],
  ['log-file', true],
  ['log-file-max-size', true],
  ['log-flush-frequency', true],
  ['logtostderr', false],
  ['one-output', false],
  ['skip-headers', false],
  ['skip-log-headers', false],
  ['stderrthreshold', true],
  ['vmodule', true],
]);

/** The result of {@link normalizeKlogFlags}. */
export interface KlogFlagsNormalized {
  /** The arguments to parse: klog flags without effect removed, `_` in flag names read as `-`. */
  readonly argv: string[];
  /**
   * One line for the user (without a `warning:` prefix) naming every flag that was removed or
   * renamed; undefined when there was none.
   */
  readonly deprecation: string | undefined;
}

/**
 * Reads a command line the way KubeFed's cobra/pflag programs did, before our parser sees it:
 * `_` in a long flag name is `-` (pflag's `WordSepNormalizeFunc`: `--host_cluster_context`
 * is `--host-cluster-context`, `--log_dir` is `--log-dir`), and the klog flags that mean nothing
 * here (`--logtostderr`, `--vmodule`, `--log-dir`, ...) are dropped with their values. `--v` is
 * left for the program, which maps it to its log level. Arguments after `--` are left alone.
 */
export function normalizeKlogFlags(argv: readonly string[]): KlogFlagsNormalized {
  const out: string[] = [];
  const ignored: string[] = [];
  const renamed: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^--([A-Za-z0-9][\w-]*)(=.*)?$/s.exec(arg);
    if (m === null) {
      out.push(arg);
      continue;
    }
    const given = m[1] ?? '';
    const name = given.replace(/_/g, '-');
    const takesValue = IGNORED_KLOG_FLAGS.get(name);
    if (takesValue !== undefined) {
      ignored.push(`--${given}`);
      if (takesValue && m[2] === undefined && i + 1 < argv.length) i++;
      continue;
    }
    if (name !== given) renamed.push(`--${given} as --${name}`);
    out.push(`--${name}${m[2] ?? ''}`);
  }
  const parts = [
    ...(ignored.length === 0 ? [] : [`${ignored.join(', ')} ignored (klog's log file, header and module flags have no effect here)`]),
    ...(renamed.length === 0 ? [] : [`read ${renamed.join(', ')} (flag names use "-")`]),
  ];
  return { argv: out, deprecation: parts.length === 0 ? undefined : `deprecated flags: ${parts.join('; ')}` };
}
