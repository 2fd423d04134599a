// The source launcher behind the workspace bins (packages/*/bin/*.js) in a checkout: runs a
// program's TypeScript sources in this process, so `npx kubefedctl` needs no build. It resolves
// workspace imports to sources (the `@kubefed/source` export condition, as vitest and
// `npm run demo` do), compiles TypeScript with tsx, and stamps the build info from git.
import { register } from 'node:module';
import { buildStamp } from '../build-stamp.js';

// Module customization hook: every resolution also matches the `@kubefed/source` condition.
const sourceCondition = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@kubefed/source'] });
}`;

/** Stamps, registers the hooks and imports `entry` (a file URL of a program's src/main.ts). */
export async function runSource(entry) {
  globalThis.KUBEFED_BUILD_STAMP = buildStamp({ source: true });
  register(`data:text/javascript,${encodeURIComponent(sourceCondition)}`);
  const tsx = await import('tsx/esm/api');
  tsx.register();
  await import(entry.href);
}
