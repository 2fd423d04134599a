/**
 * The version, commit and build date that kubefedctl and kubefed-controller-manager report
 * (KubeFed's pkg/version.Info, with Node in place of Go). Both programs read the same stamp, so
 * they print the same values.
 *
 * The stamp is the global constant `KUBEFED_BUILD_STAMP`: the packaging build replaces it with
 * its value (esbuild `define`, `tools/package/`), and the source launcher behind the workspace
 * bins (`tools/bin/launch.js`) sets it on `globalThis` from git before it loads a program.
 * Code run any other way (tests, `node --import tsx ...`) is unstamped and reports
 * {@link UNSTAMPED}.
 */
import { z } from 'zod';

/** The build-time part of {@link BuildInfo}. */
export interface BuildStamp {
  /** `v<version>`: the `v*` tag `git describe` finds, else the project version (`-dev` when run from sources). */
  gitVersion: string;
  /** Commit the program was built from, or `unknown`. */
  gitCommit: string;
  /** `clean`, `dirty` (uncommitted changes to tracked files) or `unknown`. */
  gitTreeState: 'clean' | 'dirty' | 'unknown';
  /** ISO 8601 UTC time of the build (`2026-01-02T03:04:05Z`), or `unknown` (sources). */
  buildDate: string;
}

/** What `kubefedctl version` and `kubefed-controller-manager --version` print. */
export interface BuildInfo extends BuildStamp {
  /** `process.version` of the running Node. */
  nodeVersion: string;
  /** `<os>/<arch>`, e.g. `linux/x64`. */
  platform: string;
}

/** The running Node, for {@link buildInfo}. */
export interface NodeRuntime {
  /** `process.version`. */
  nodeVersion: string;
  /** `process.platform`. */
  os: string;
  /** `process.arch`. */
  arch: string;
}

/** The name of the stamp's global constant. */
export const BUILD_STAMP_GLOBAL = 'KUBEFED_BUILD_STAMP';

/** What an unstamped program reports. */
export const UNSTAMPED: BuildStamp = { gitVersion: 'v0.0.0-dev', gitCommit: 'unknown', gitTreeState: 'unknown', buildDate: 'unknown' };

const buildStampSchema = z.object({
  gitVersion: z.string().min(1),
  gitCommit: z.string().min(1),
  gitTreeState: z.enum(['clean', 'dirty', 'unknown']),
  buildDate: z.string().min(1),
});

// Replaced by the packaging build (esbuild `define`) or set on globalThis by the source launcher.
declare const KUBEFED_BUILD_STAMP: unknown;

/** The stamp of the running program; {@link UNSTAMPED} when there is none or it is malformed. */
export function buildStamp(): BuildStamp {
  const raw: unknown = typeof KUBEFED_BUILD_STAMP === 'undefined' ? undefined : KUBEFED_BUILD_STAMP;
  const parsed = buildStampSchema.safeParse(raw);
  return parsed.success ? parsed.data : UNSTAMPED;
}

/** The running program's {@link BuildInfo}: its stamp (default {@link buildStamp}) and the runtime. */
export function buildInfo(runtime: NodeRuntime, stamp: BuildStamp = buildStamp()): BuildInfo {
  return { ...stamp, nodeVersion: runtime.nodeVersion, platform: `${runtime.os}/${runtime.arch}` };
}

/**
 * One line in KubeFed's form, `<program> version: {gitVersion: "v0.1.0", gitCommit: "…", …}`,
 * or, with `output: 'json'`, the object as indented JSON. Ends with a newline.
 */
export function formatBuildInfo(program: string, info: BuildInfo, output: 'text' | 'json' = 'text'): string {
  if (output === 'json') return `${JSON.stringify(info, null, 2)}\n`;
  const fields = Object.entries(info).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `${program} version: {${fields.join(', ')}}\n`;
}
