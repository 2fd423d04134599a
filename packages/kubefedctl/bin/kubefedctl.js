#!/usr/bin/env node
// `kubefedctl`: in a checkout, the TypeScript sources through the source launcher (no build needed);
// elsewhere (a packed or installed package), the built dist/main.js.
import { existsSync } from 'node:fs';

const launcher = new URL('../../../tools/bin/run-source.js', import.meta.url);
if (existsSync(launcher)) {
  const { runSource } = await import(launcher.href);
  await runSource(new URL('../src/main.ts', import.meta.url));
} else {
  await import('../dist/main.js');
}
