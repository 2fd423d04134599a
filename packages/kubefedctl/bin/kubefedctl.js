#!/usr/bin/env node
// `kubefedctl`: in a checkout, through the launcher (compiled dist/ when current, else the sources);
// elsewhere (a packed or installed package), the built dist/main.js.
import { existsSync } from 'node:fs';

const launcher = new URL('../../../tools/bin/launch.js', import.meta.url);
if (existsSync(launcher)) {
  const { launch } = await import(launcher.href);
  await launch('kubefedctl', 'main');
} else {
  await import('../dist/main.js');
}
