// `npm run package:kubefedctl`: writes dist/kubefedctl-linux-x64, a single executable that runs
// with no repository and no node_modules: the production Node (tools/node/production-version)
// with kubefedctl bundled into it as a Node single executable application (SEA).
//   1. esbuild bundles packages/kubefedctl/src/main.ts and every dependency into one CommonJS
//      file (Node's SEA runs a CommonJS main), with the build stamp defined
//      (KUBEFED_BUILD_STAMP, packages/api/src/build-info.ts);
//   2. that Node writes the SEA blob (`--experimental-sea-config`);
//   3. postject injects the blob into a copy of that Node binary.
// The files of the `kubefedctl dashboard` page (the dashboard's assets/ and the browser packages
// it serves from node_modules) go into the blob as SEA assets keyed by URL path, which the
// dashboard reads with node:sea's getAsset (packages/dashboard/src/page-files.ts); so do the
// bash and zsh completion templates, which `kubefedctl completion` reads the same way.
// Options: --node <path> (a Node binary to embed instead; it must be the one that writes the
// blob), --out <path> (default dist/kubefedctl-linux-x64).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { inject } from 'postject';
import { tsImport } from 'tsx/esm/api';
import { buildStamp } from '../build-stamp.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The fuse Node's SEA support looks for (documented with `postject` in Node's SEA guide).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function productionNode() {
  return execFileSync('bash', [join(root, 'tools/node/install-node.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

async function bundle(outfile, stamp) {
  await build({
    entryPoints: [join(root, 'packages/kubefedctl/src/main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    conditions: ['@kubefed/source'],
    // CommonJS has no import.meta: modules that locate files beside themselves get the
    // executable's own URL (no such file is inside the executable; see docs/user-guide.md).
    define: { KUBEFED_BUILD_STAMP: JSON.stringify(stamp), 'import.meta.url': '__kubefedImportMetaUrl' },
    banner: { js: "const __kubefedImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    // Node's builtin punycode warns (DEP0040) when code outside node_modules requires it, as the
    // bundled tr46 and whatwg-url do: they get the npm package of the same API instead.
    alias: { punycode: join(root, 'node_modules/punycode/punycode.js') },
    logLevel: 'warning',
    legalComments: 'none',
  });
  // The SEA main is compiled as a CommonJS function body, where a `#!` line is a syntax error.
  writeFileSync(outfile, readFileSync(outfile, 'utf8').replace(/^#!.*\n/, ''));
}

/**
 * The SEA assets, key → file: the dashboard page's files (keyed by URL path) and the shell
 * completion templates (packages/kubefedctl/src/completion-scripts.ts).
 */
async function seaAssets() {
  const { pageFileList } = await tsImport(join(root, 'packages/dashboard/src/page-files.ts'), import.meta.url);
  const { completionTemplateFiles } = await tsImport(join(root, 'packages/kubefedctl/src/completion-scripts.ts'), import.meta.url);
  return Object.fromEntries([...pageFileList(), ...completionTemplateFiles()]);
}

async function main() {
  const { values } = parseArgs({ options: { node: { type: 'string' }, out: { type: 'string' } } });
  const node = values.node ?? productionNode();
  const out = resolve(values.out ?? join(root, 'dist/kubefedctl-linux-x64'));
  const work = mkdtempSync(join(tmpdir(), 'package-kubefedctl-'));
  mkdirSync(dirname(out), { recursive: true });

  const stamp = buildStamp({ source: false });
  const main = join(work, 'kubefedctl.cjs');
  const blob = join(work, 'kubefedctl.blob');
  try {
    await bundle(main, stamp);
    const seaConfig = { main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets: await seaAssets() };
    writeFileSync(join(work, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
    execFileSync(node, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(out, { force: true });
    copyFileSync(node, out);
    chmodSync(out, 0o755);
    await inject(out, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`wrote ${out}: ${execFileSync(out, ['version'], { encoding: 'utf8' })}`);
}

main().catch((err) => {
  process.stderr.write(`package:kubefedctl: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
