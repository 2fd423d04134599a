/**
 * Helpers of the Helm chart tests (test/e2e/helm*.test.ts): the helm binary that
 * `bash tools/helm/build.sh` builds (tools/helm), `helm template` of deploy/helm/kubefed parsed into
 * objects, and kubectl against a kubeconfig.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CHART = join(REPO_ROOT, 'deploy', 'helm', 'kubefed');
export const KUBECTL = '/usr/bin/kubectl';

/** Parsed YAML/JSON (JSON.parse's result type): the assertions check its shape. */
export type Parsed = ReturnType<typeof JSON.parse>;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: Parsed;
}

/** The helm binary of `bash tools/helm/build.sh`: `${KUBEFED_KUBE_CACHE:-~/.cache/kubefed-kube}/helm-<version>/bin/helm`, the version pinned in tools/helm/go.mod. */
export function helmBinary(): string {
  const goMod = readFileSync(join(REPO_ROOT, 'tools', 'helm', 'go.mod'), 'utf8');
  const version = /^\s*helm\.sh\/helm\/v3\s+(v\S+)/m.exec(goMod)?.[1];
  if (version === undefined) throw new Error('tools/helm/go.mod pins no helm.sh/helm/v3 version');
  return join(process.env['KUBEFED_KUBE_CACHE'] ?? join(homedir(), '.cache', 'kubefed-kube'), `helm-${version}`, 'bin', 'helm');
}

/** Whether `bash tools/helm/build.sh` has built helm (npm test builds it first; the tests fail naming the command when not). */
export const helmBuilt = (): boolean => existsSync(helmBinary());

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCommand}. */
export interface RunOptions {
  /** Written to its stdin; default nothing. */
  input?: string | undefined;
  /** Its environment; default this process's. */
  env?: NodeJS.ProcessEnv | undefined;
}

/** Runs a command with a time limit (120 s). */
export function runCommand(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 120_000,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a command and returns its stdout; a non-zero exit rejects with its stderr. */
export async function runOk(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const r = await runCommand(file, args, options);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}`);
  return r.stdout;
}

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** `--set` arguments of a values map (`{ 'global.scope': 'Namespaced' }`). */
export const setArgs = (values: Readonly<Record<string, string>>): string[] =>
  Object.entries(values).flatMap(([k, v]) => ['--set', `${k}=${v}`]);

/** `helm template kubefed deploy/helm/kubefed -n <namespace> --include-crds` with the values, parsed. */
export async function helmTemplate(options: {
  namespace: string;
  values?: Readonly<Record<string, string>>;
  extraArgs?: readonly string[];
}): Promise<K8sObject[]> {
  const args = [
    'template',
    'kubefed',
    CHART,
    '-n',
    options.namespace,
    '--include-crds',
    ...setArgs(options.values ?? {}),
    ...(options.extraArgs ?? []),
  ];
  return parseObjects(await runOk(helmBinary(), args));
}

export function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`rendered manifests have no ${kind} ${name}`);
  return found;
}

export function containerOf(deployment: K8sObject): Parsed {
  const containers = deployment.spec.template.spec.containers as Parsed[];
  if (containers.length !== 1) throw new Error(`${deployment.metadata.name} has ${containers.length} containers, not 1`);
  return containers[0];
}

export function envVar(deployment: K8sObject, name: string): Parsed {
  return (containerOf(deployment).env as Parsed[]).find((e) => e.name === name);
}

/** The CRDs first (they must be Established before their objects), then the rest. */
export function crdsFirst(objects: readonly K8sObject[]): { crds: K8sObject[]; rest: K8sObject[] } {
  return {
    crds: objects.filter((o) => o.kind === 'CustomResourceDefinition'),
    rest: objects.filter((o) => o.kind !== 'CustomResourceDefinition'),
  };
}
