import { InvalidArgumentError } from 'commander';

const INTEGER = /^\d+$/;

/**
 * Rewrites klog's spellings of the verbosity flag into the two flags the program defines
 * (`--v <level>` and `--verbose`), so every form KubeFed's kubefedctl took works: `--v=2`,
 * `--v 2`, `-v 2`, `-v=2` and `-v2` become `--v=2`; `-v` not followed by a number keeps its
 * earlier meaning, `--verbose`. Arguments after `--` are left alone.
 */
export function normalizeVerbosityArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (arg === '-v' && next !== undefined && INTEGER.test(next)) {
      out.push(`--v=${next}`);
      i++;
    } else if (arg === '-v') {
      out.push('--verbose');
    } else if (/^-v=?\d+$/.test(arg)) {
      out.push(`--v=${arg.replace(/^-v=?/, '')}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Parses the value of `--v`: a non-negative integer, as klog takes it. */
export function parseVerbosity(value: string): number {
  if (!INTEGER.test(value.trim())) throw new InvalidArgumentError('expected a non-negative integer (klog verbosity, e.g. --v=2).');
  return Number(value.trim());
}
