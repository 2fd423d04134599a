/**
 * Writes the generated CRDs into deploy/crds/ (one YAML file per CRD, plus kustomization.yaml)
 * and removes stale YAML files there. Run with `npm run generate` from the repository root.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCrdFiles } from '../src/crds/generate.js';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy', 'crds');
const files = generateCrdFiles();
mkdirSync(outDir, { recursive: true });
for (const existing of readdirSync(outDir)) {
  if (existing.endsWith('.yaml') && !(existing in files)) {
    rmSync(join(outDir, existing));
    console.log(`removed ${existing}`);
  }
}
for (const [name, content] of Object.entries(files)) writeFileSync(join(outDir, name), content);
console.log(`wrote ${Object.keys(files).length} files to ${outDir}`);
