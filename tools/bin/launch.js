// The launcher behind the workspace bins (packages/*/bin/*.js) in a checkout. A program runs its
// compiled JavaScript (dist/, which `npm ci` builds through the root `prepare` script) when every
// source file of the program and of the workspace packages it imports is older than its output;
// otherwise, or with KUBEFED_SOURCE=1, it runs the TypeScript sources in this process, so an edit
// needs no build: a module hook adds the `@kubefed/source` condition to every resolution (as
// vitest and `npm run demo` do) and tsx compiles TypeScript. Either way the build stamp is the
// checkout's, from git.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { register } from 'node:module';
import { buildStamp } from '../build-stamp.js';

const packagesDir = new URL('../../packages/', import.meta.url);

// Module customization hook: every resolution also matches the `@kubefed/source` condition.
const sourceCondition = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@kubefed/source'] });
}`;

/** The workspace packages by directory name under packages/: their manifests. */
function workspaceManifests() {
  const manifests = new Map();
  for (const dir of readdirSync(packagesDir)) {
    try {
      manifests.set(dir, JSON.parse(readFileSync(new URL(`${dir}/package.json`, packagesDir), 'utf8')));
    } catch {
      // not a package
    }
  }
  return manifests;
}

/** The directory of `pkgDir` and of the workspace packages it depends on, transitively. */
function closure(pkgDir) {
  const manifests = workspaceManifests();
  const dirOf = new Map([...manifests].map(([dir, manifest]) => [manifest.name, dir]));
  const seen = new Set();
  const visit = (dir) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    for (const dep of Object.keys(manifests.get(dir)?.dependencies ?? {})) {
      if (dirOf.has(dep)) visit(dirOf.get(dep));
    }
  };
  visit(pkgDir);
  return [...seen];
}

/**
 * Why the build under `dist` is not current for the sources under `src` (a non-test `.ts` file
 * without a `.js` at least as new, named relative to packages/), or undefined when it is.
 */
function staleness(src, dist, prefix) {
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    const name = entry.name;
    if (entry.isDirectory()) {
      const why = staleness(new URL(`${name}/`, src), new URL(`${name}/`, dist), `${prefix}${name}/`);
      if (why !== undefined) return why;
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) {
      let built;
      try {
        built = statSync(new URL(name.replace(/\.ts$/, '.js'), dist)).mtimeMs;
      } catch {
        return `${prefix}${name} has no build`;
      }
      if (statSync(new URL(name, src)).mtimeMs > built) return `${prefix}${name} is newer than its build`;
    }
  }
  return undefined;
}

/**
 * Why the program of workspace package `pkgDir` must run from sources (a file of it or of a
 * workspace package it imports changed since the last build), or undefined when dist/ is current.
 */
function sourceReason(pkgDir) {
  for (const dir of closure(pkgDir)) {
    const why = staleness(new URL(`${dir}/src/`, packagesDir), new URL(`${dir}/dist/`, packagesDir), `${dir}/src/`);
    if (why !== undefined) return why;
  }
  return undefined;
}

/**
 * Runs the program `entry` (a path under the package, without extension, such as `main`) of the
 * workspace package directory `pkgDir` (a name under packages/): dist/<entry>.js when current,
 * else src/<entry>.ts through tsx.
 */
export async function launch(pkgDir, entry) {
  globalThis.KUBEFED_BUILD_STAMP = buildStamp({ source: true });
  const why = process.env.KUBEFED_SOURCE === '1' ? 'KUBEFED_SOURCE=1' : sourceReason(pkgDir);
  // KUBEFED_LAUNCH_VERBOSE=1 says which of the two runs, and why (on stderr).
  const say = process.env.KUBEFED_LAUNCH_VERBOSE === '1' ? (line) => process.stderr.write(`launch: ${line}\n`) : () => {};
  if (why === undefined) {
    say(`packages/${pkgDir}/dist/${entry}.js`);
    await import(new URL(`${pkgDir}/dist/${entry}.js`, packagesDir).href);
    return;
  }
  say(`packages/${pkgDir}/src/${entry}.ts (${why})`);
  register(`data:text/javascript,${encodeURIComponent(sourceCondition)}`);
  const tsx = await import('tsx/esm/api');
  tsx.register();
  await import(new URL(`${pkgDir}/src/${entry}.ts`, packagesDir).href);
}
