/**
 * Writes the generated CRDs into deploy/crds/ (one YAML file per CRD, plus kustomization.yaml)
 * and the same CRD files into the Helm chart's deploy/helm/kubefed/crds/, and removes stale YAML
 * files in both. Run with `npm run generate` from the repository root.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRDS_KUSTOMIZATION_FILE, generateCrdFiles } from '../src/crds/generate.js';

const deployDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy');

/** Writes `files` into `outDir` and removes the YAML files there that are not among them. */
function writeDir(outDir: string, files: Record<string, string>): void {
  mkdirSync(outDir, { recursive: true });
  for (const existing of readdirSync(outDir)) {
    if (existing.endsWith('.yaml') && !(existing in files)) {
      rmSync(join(outDir, existing));
      console.log(`removed ${existing}`);
    }
  }
  for (const [name, content] of Object.entries(files)) writeFileSync(join(outDir, name), content);
  console.log(`wrote ${Object.keys(files).length} files to ${outDir}`);
}

const files = generateCrdFiles();
writeDir(join(deployDir, 'crds'), files);
// The chart installs every file of its crds/ as a CRD: no kustomization.yaml there.
writeDir(
  join(deployDir, 'helm', 'kubefed', 'crds'),
  Object.fromEntries(Object.entries(files).filter(([name]) => name !== CRDS_KUSTOMIZATION_FILE)),
);
