/**
 * Writes the generated files of deploy/helm/kubefed (chart-files.ts) and removes stale CRD files
 * from its crds/. Run by `npm run generate`, after the CRDs of deploy/crds are written.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHART_DIR, chartGeneratedFiles } from './chart-files.js';

const files = chartGeneratedFiles();
const crdsDir = join(CHART_DIR, 'crds');
mkdirSync(crdsDir, { recursive: true });
for (const existing of readdirSync(crdsDir)) {
  if (!(`crds/${existing}` in files)) {
    rmSync(join(crdsDir, existing));
    process.stdout.write(`removed crds/${existing}\n`);
  }
}
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(CHART_DIR, path)), { recursive: true });
  writeFileSync(join(CHART_DIR, path), content);
}
process.stdout.write(`wrote ${Object.keys(files).length} files to ${CHART_DIR}\n`);
