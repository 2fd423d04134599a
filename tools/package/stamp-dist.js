// The build stamp (packages/api/src/build-info.ts) for the compiled programs of the container
// image (deploy/Dockerfile): after `npm run build`, rewrites packages/api/dist/build-info.js with
// the stamp defined as the global constant KUBEFED_BUILD_STAMP (esbuild `define`), as the
// single-file kubefedctl (tools/package/kubefedctl.js) does. Both kubefed-controller-manager and
// kubefedctl import that module, so both report the same stamp.
//   node tools/package/stamp-dist.js [--git-version v0.1.0] [--git-commit <sha>]
//        [--git-tree-state clean|dirty|unknown] [--build-date 2026-01-02T03:04:05Z]
// An option left out or empty takes its value from git (tools/build-stamp.js): in a build
// context without .git, the project version, `unknown` commit and tree state, and now.
//   node tools/package/stamp-dist.js --docker-build-args
// prints the `--build-arg` flags for `docker build` from this checkout's git.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { transform } from 'esbuild';
import { buildStamp } from '../build-stamp.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = join(root, 'packages/api/dist/build-info.js');

/** Option name → stamp field, and the Dockerfile's build argument of the same value. */
const FIELDS = [
  {
    option: 'git-version',
    field: 'gitVersion',
    arg: 'GIT_VERSION',
    valid: /^v\d+\.\d+\.\d+\S*$/,
    form: 'v<major>.<minor>.<patch>[suffix]',
  },
  {
    option: 'git-commit',
    field: 'gitCommit',
    arg: 'GIT_COMMIT',
    valid: /^([0-9a-f]{7,64}|unknown)$/,
    form: 'a hexadecimal commit or unknown',
  },
  {
    option: 'git-tree-state',
    field: 'gitTreeState',
    arg: 'GIT_TREE_STATE',
    valid: /^(clean|dirty|unknown)$/,
    form: 'clean, dirty or unknown',
  },
  {
    option: 'build-date',
    field: 'buildDate',
    arg: 'BUILD_DATE',
    valid: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    form: 'UTC ISO 8601, e.g. 2026-01-02T03:04:05Z',
  },
];

/** The stamp: each given, non-empty option, else the value git gives. */
function stampFrom(values) {
  const stamp = buildStamp({ source: false });
  for (const { option, field, valid, form } of FIELDS) {
    const given = values[option];
    if (given === undefined || given === '') continue;
    if (!valid.test(given)) throw new Error(`--${option}: "${given}" is not ${form}`);
    stamp[field] = given;
  }
  return stamp;
}

async function stampDist(stamp) {
  let code;
  try {
    code = readFileSync(target, 'utf8');
  } catch {
    throw new Error(`${target} is missing: run npm run build first`);
  }
  if (!/\btypeof KUBEFED_BUILD_STAMP\b/.test(code)) throw new Error(`${target} reads no KUBEFED_BUILD_STAMP to define (stamped already?)`);
  const out = await transform(code, { loader: 'js', format: 'esm', define: { KUBEFED_BUILD_STAMP: JSON.stringify(stamp) } });
  writeFileSync(target, out.code);
}

async function main() {
  const options = Object.fromEntries(FIELDS.map((f) => [f.option, { type: 'string' }]));
  const { values } = parseArgs({ options: { ...options, 'docker-build-args': { type: 'boolean' } } });
  const stamp = stampFrom(values);
  if (values['docker-build-args'] === true) {
    process.stdout.write(`${FIELDS.map((f) => `--build-arg ${f.arg}=${stamp[f.field]}`).join(' ')}\n`);
    return;
  }
  await stampDist(stamp);
  process.stdout.write(`stamped ${target}: ${JSON.stringify(stamp)}\n`);
}

main().catch((err) => {
  process.stderr.write(`stamp-dist: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
