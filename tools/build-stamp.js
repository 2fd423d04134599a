// The build stamp (packages/api/src/build-info.ts) of the checkout this file is in, from git:
// used by the source launcher (tools/bin/launch.js) at every start and by the packaging
// scripts (tools/package/) at build time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);

function git(args) {
  try {
    return execFileSync('git', args, { cwd: root, timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The project version, from the root package.json. */
export function projectVersion() {
  return JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).version;
}

/**
 * `{gitVersion, gitCommit, gitTreeState, buildDate}`. gitVersion is the `v*` tag `git describe`
 * finds (with its `-<n>-g<commit>` suffix past the tag), else `v<project version>`, with `-dev`
 * for sources (`source: true`, whose buildDate is `unknown`). A build's date is now, or
 * SOURCE_DATE_EPOCH (seconds) when set, for reproducible builds. Outside git: `unknown`s.
 */
export function buildStamp({ source }) {
  const commit = git(['rev-parse', 'HEAD']);
  const status = commit === undefined ? undefined : git(['status', '--porcelain', '--untracked-files=no']);
  const tag = commit === undefined ? undefined : git(['describe', '--tags', '--match', 'v[0-9]*', '--abbrev=14']);
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date();
  return {
    gitVersion: `${tag ?? `v${projectVersion()}`}${source ? '-dev' : ''}`,
    gitCommit: commit ?? 'unknown',
    gitTreeState: status === undefined ? 'unknown' : status === '' ? 'clean' : 'dirty',
    buildDate: source ? 'unknown' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
