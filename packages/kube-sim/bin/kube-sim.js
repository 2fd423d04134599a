#!/usr/bin/env node
// `kube-sim`: in a checkout, through the launcher (compiled dist/ when current, else the sources);
// elsewhere (a packed or installed package), the built dist/cli.js.
import { existsSync } from 'node:fs';

const launcher = new URL('../../../tools/bin/launch.js', import.meta.url);
if (existsSync(launcher)) {
  const { launch } = await import(launcher.href);
  await launch('kube-sim', 'cli');
} else {
  await import('../dist/cli.js');
}
