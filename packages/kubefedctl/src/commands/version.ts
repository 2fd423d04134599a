import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What `kubefedctl version` reports (KubeFed's version.Info, with Node in place of Go). */
export interface BuildInfo {
  /** `v<package version>`. */
  gitVersion: string;
  /** Commit the binary was built from, or `unknown`. */
  gitCommit: string;
  /** `clean`, `dirty` (uncommitted changes to tracked files) or `unknown`. */
  gitTreeState: 'clean' | 'dirty' | 'unknown';
  /** ISO 8601 UTC time the running code was built (written), or `unknown`. */
  buildDate: string;
  /** `process.version` of the running Node. */
  nodeVersion: string;
  /** `<os>/<arch>`, e.g. `linux/x64`. */
  platform: string;
}

/**
 * Renders the version like KubeFed's `kubefedctl version` (one line,
 * `kubefedctl version: {gitVersion: "v0.1.0", ...}`), or as JSON with `output: 'json'`.
 */
export function formatVersion(info: BuildInfo, output: 'text' | 'json' = 'text'): string {
  if (output === 'json') return `${JSON.stringify(info, null, 2)}\n`;
  const fields = Object.entries(info).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `kubefedctl version: {${fields.join(', ')}}\n`;
}

/** Where {@link readBuildInfo} looks. */
export interface BuildInfoSource {
  /** The kubefedctl package directory (holds package.json, and build-info.json when a release build wrote one). */
  packageDir: string;
  /** The running entry file (its modification time stands in for the build date). */
  entryFile: string;
  nodeVersion: string;
  /** `process.platform`. */
  os: string;
  /** `process.arch`. */
  arch: string;
}

function git(args: string[], cwd: string): string | undefined {
  try {
    return execFileSync('git', args, { cwd, timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Collects the build info: version from package.json; commit, tree state and build date from
 * `build-info.json` beside it when present, else from git in the package directory, else `unknown`.
 * Never throws.
 */
export function readBuildInfo(source: BuildInfoSource): BuildInfo {
  let version = '0.0.0';
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(source.packageDir, 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // keep the fallback
  }
  const info: BuildInfo = {
    gitVersion: `v${version}`,
    gitCommit: 'unknown',
    gitTreeState: 'unknown',
    buildDate: 'unknown',
    nodeVersion: source.nodeVersion,
    platform: `${source.os}/${source.arch}`,
  };
  try {
    info.buildDate = fs.statSync(source.entryFile).mtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
  } catch {
    // keep unknown
  }
  const recorded = path.join(source.packageDir, 'build-info.json');
  if (fs.existsSync(recorded)) {
    try {
      const b = JSON.parse(fs.readFileSync(recorded, 'utf8')) as Partial<Record<keyof BuildInfo, unknown>>;
      if (typeof b.gitCommit === 'string') info.gitCommit = b.gitCommit;
      if (b.gitTreeState === 'clean' || b.gitTreeState === 'dirty') info.gitTreeState = b.gitTreeState;
      if (typeof b.buildDate === 'string') info.buildDate = b.buildDate;
      return info;
    } catch {
      // fall back to git
    }
  }
  const commit = git(['rev-parse', 'HEAD'], source.packageDir);
  if (commit !== undefined && /^[0-9a-f]{40}$/.test(commit)) {
    info.gitCommit = commit;
    const status = git(['status', '--porcelain', '--untracked-files=no'], source.packageDir);
    if (status !== undefined) info.gitTreeState = status === '' ? 'clean' : 'dirty';
  }
  return info;
}
