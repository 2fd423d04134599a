/**
 * Writes packages/kube-sim/openapi/builtin-schemas.json: for each group-version of kube-sim's
 * built-in kinds, the OpenAPI v3 component schemas those kinds reach, taken from the OpenAPI v3
 * documents that Kubernetes publishes in k8s.io/kubernetes (api/openapi-spec/v3), at the
 * version pinned in tools/kube/go.mod. Descriptions and defaults are left out to keep the file
 * small; types, formats, required fields and the x-kubernetes-* extensions that kubectl reads
 * (patch strategies, list and map types, group-version-kinds) are kept.
 *
 * Run from the repository root after `npm run kube:build` (which downloads the module):
 *   node --conditions=@kubefed/source --import tsx packages/kube-sim/scripts/generate-builtin-openapi.ts [spec-dir]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResources } from '../src/resources/builtin-resources.js';

type Json = unknown;
type Obj = Record<string, Json>;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function kubernetesModule(): { dir: string; version: string } {
  const cwd = join(root, 'tools', 'kube');
  // `go list -m` leaves .Dir empty until the module is in the module cache.
  execFileSync('go', ['mod', 'download', 'k8s.io/kubernetes'], { cwd, stdio: 'inherit' });
  const out = execFileSync('go', ['list', '-mod=readonly', '-m', '-f', '{{.Dir}} {{.Version}}', 'k8s.io/kubernetes'], {
    cwd,
    encoding: 'utf8',
  }).trim();
  const [dir = '', version = ''] = out.split(' ');
  return { dir, version };
}

/** The schema without descriptions and defaults, recursively. */
function strip(v: Json): Json {
  if (Array.isArray(v)) return v.map(strip);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'description' || k === 'default' || k === 'example') continue;
    out[k] = strip(x);
  }
  return out;
}

/** Names of the component schemas `v` refers to. */
function refs(v: Json, found: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) refs(x, found);
  else if (isObj(v))
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') found.add(x.replace('#/components/schemas/', ''));
      else refs(x, found);
    }
}

function reachable(schemas: Obj, roots: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (seen.has(name) || schemas[name] === undefined) continue;
    seen.add(name);
    const next = new Set<string>();
    refs(schemas[name], next);
    todo.push(...next);
  }
  return [...seen].sort();
}

function componentOf(schemas: Obj, group: string, version: string, kind: string): string | undefined {
  return Object.keys(schemas).find((name) => {
    const gvks = (schemas[name] as Obj)['x-kubernetes-group-version-kind'];
    return (
      Array.isArray(gvks) && gvks.some((g) => isObj(g) && (g['group'] ?? '') === group && g['version'] === version && g['kind'] === kind)
    );
  });
}

const mod = process.argv[2] === undefined ? kubernetesModule() : { dir: process.argv[2], version: process.argv[3] ?? 'unknown' };
const specDir = process.argv[2] ?? join(mod.dir, 'api', 'openapi-spec', 'v3');
const byGv = new Map<string, string[]>();
for (const def of builtinResources()) {
  if (def.virtual === true) continue;
  for (const v of def.versions) {
    const key = def.group === '' ? `api/${v.name}` : `apis/${def.group}/${v.name}`;
    byGv.set(key, [...(byGv.get(key) ?? []), `${def.group}|${v.name}|${def.kind}`]);
  }
}
const groupVersions: Obj = {};
for (const [key, kinds] of [...byGv].sort(([a], [b]) => a.localeCompare(b))) {
  const doc = JSON.parse(readFileSync(join(specDir, `${key.replaceAll('/', '__')}_openapi.json`), 'utf8')) as Obj;
  const schemas = (doc['components'] as Obj)['schemas'] as Obj;
  const roots = kinds.map((k) => {
    const [group = '', version = '', kind = ''] = k.split('|');
    const name = componentOf(schemas, group, version, kind);
    if (name === undefined) throw new Error(`no schema for ${k} in ${key}`);
    return name;
  });
  groupVersions[key] = Object.fromEntries(reachable(schemas, roots).map((n) => [n, strip(schemas[n])]));
}
const out = join(root, 'packages', 'kube-sim', 'openapi', 'builtin-schemas.json');
writeFileSync(out, `${JSON.stringify({ kubernetes: mod.version, groupVersions })}\n`);
console.log(`wrote ${out}`);
