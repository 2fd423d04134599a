/**
 * The image of deploy/Dockerfile, as far as it can be checked without building it: the base is
 * Node.js 24 pinned by digest, the build context holds no tests and nothing of the workspaces the
 * image does not ship, the final stage gets only the controller manager, kubefedctl, the
 * workspace packages they import and their production dependencies, and the manifests name the
 * image by the package version, never `:latest`. The build stage's build and stamp steps are run
 * without Docker, and both programs report the build arguments' version and commit.
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const KUBECTL = '/usr/bin/kubectl';
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const deployDir = join(repoRoot, 'deploy');
/** The programs the image runs. */
const SHIPPED_PROGRAMS = ['@kubefed/controller-manager', '@kubefed/kubefedctl'];
/** Workspaces that must never reach the image. */
const NOT_SHIPPED = ['kube-sim', 'demo', 'testing'];

/** The files under `dir` (relative, slash-separated), not descending into `skip` directory names. */
function walk(dir: string, skip: ReadonlySet<string>, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const path = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) return skip.has(e.name) ? [] : walk(dir, skip, path);
    return e.isFile() ? [path] : [];
  });
}

function run(
  file: string,
  args: readonly string[],
  options: ExecFileOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: repoRoot, timeout: 60_000, maxBuffer: 64 * 1024 * 1024, ...options, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

/** The fields of the one-line version form, `<program> version: {gitVersion: "v…", gitCommit: "…", …}`. */
function versionFields(program: string, stdout: string): Record<string, string> {
  const m = new RegExp(`^${program} version: \\{(.*)\\}\\n$`).exec(stdout);
  expect(m, stdout).not.toBeNull();
  return Object.fromEntries([...m![1]!.matchAll(/(\w+): ("(?:[^"\\]|\\.)*")/g)].map(([, k, v]) => [k!, JSON.parse(v!) as string]));
}

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The instructions of a Dockerfile (continuation lines joined, comments and the parser directive dropped). */
function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The stages of a Dockerfile: the instructions from each FROM to the next. */
function stagesOf(instructions: readonly Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const i of instructions) {
    if (i.keyword === 'FROM') stages.push([i]);
    else stages.at(-1)?.push(i);
  }
  return stages;
}

/** A .dockerignore pattern as a regular expression over slash-separated paths (Go filepath.Match plus `**`). */
function patternRegExp(pattern: string): RegExp {
  let re = '';
  const p = pattern.replace(/^\/+/, '');
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      re += p[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += p[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Whether Docker leaves `file` out of the build context: the last pattern matching the file or
 * one of its parent directories decides, `!` patterns put it back.
 */
function excludedBy(rules: readonly string[]): (file: string) => boolean {
  const compiled = rules.map((r) =>
    r.startsWith('!') ? { include: true, re: patternRegExp(r.slice(1)) } : { include: false, re: patternRegExp(r) },
  );
  return (file) => {
    const parts = file.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of compiled) {
      if (rule.include ? rule.re.test(file) : candidates.some((c) => rule.re.test(c))) excluded = !rule.include;
    }
    return excluded;
  };
}

interface WorkspacePackage {
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

const workspaces: WorkspacePackage[] = readdirSync(join(repoRoot, 'packages')).map((dir) => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'packages', dir, 'package.json'), 'utf8')) as Omit<WorkspacePackage, 'dir'>;
  return { dir, name: pkg.name, version: pkg.version, dependencies: pkg.dependencies ?? {} };
});

/** The workspace packages `names` need at run time (their production dependencies, transitively). */
function runtimeClosure(names: readonly string[]): string[] {
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const seen = new Set<string>();
  const visit = (name: string): void => {
    const w = byName.get(name);
    if (w === undefined || seen.has(w.dir)) return;
    seen.add(w.dir);
    for (const dep of Object.keys(w.dependencies)) visit(dep);
  };
  names.forEach(visit);
  return [...seen].sort();
}

/** What `docker build` sends from this checkout: the files Dockerfile.dockerignore leaves in. */
function buildContext(): string[] {
  const rules = readFileSync(join(deployDir, 'Dockerfile.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const excluded = excludedBy(rules);
  // The directories skipped are all ignored.
  const files = walk(repoRoot, new Set(['node_modules', '.git', 'dist', '.turbo']));
  expect(files.length).toBeGreaterThan(100);
  return files.filter((f) => !excluded(f));
}

const dockerfile = parseDockerfile(readFileSync(join(deployDir, 'Dockerfile'), 'utf8'));
const stages = stagesOf(dockerfile);
const finalStage = stages.at(-1) ?? [];
const buildStage = stages.find((s) => /\bAS build$/i.test(s[0]?.args ?? '')) ?? [];

describe('the kubefed-controller-manager image (deploy/Dockerfile)', () => {
  it('builds every stage on node:24-bookworm-slim pinned by digest', () => {
    const arg = dockerfile.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='));
    expect(arg?.args).toMatch(/^NODE_IMAGE=node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect(dockerfile.indexOf(arg!)).toBeLessThan(dockerfile.findIndex((i) => i.keyword === 'FROM'));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]?.args).toMatch(/^\$\{NODE_IMAGE\}( AS \w+)?$/i);
  });

  it('copies into the final stage only the assembled /out of the build stage, and runs the controller manager as a numeric non-root user', () => {
    expect(finalStage.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD').map((i) => i.args)).toEqual(['--from=build /out/ ./']);
    expect(finalStage.find((i) => i.keyword === 'ENTRYPOINT')?.args).toBe('["node", "packages/controller-manager/dist/main.js"]');
    expect(finalStage.find((i) => i.keyword === 'USER')?.args).toBe('65532:65532');
    // npm, corepack and yarn of the base image go too.
    expect(finalStage.find((i) => i.keyword === 'RUN')?.args).toMatch(/^rm -rf \/usr\/local\/lib\/node_modules /);
  });

  it('assembles /out from the production dependencies of the controller manager and kubefedctl alone', () => {
    const runs = buildStage.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const assemble = runs.find((r) => r.includes('/out'));
    expect(assemble).toBeDefined();
    const install = /npm ci (.*?)(?:&&|$)/.exec(assemble!.slice(assemble!.indexOf('cd /out')))?.[1] ?? '';
    expect(install.split(/\s+/).filter((w) => w !== '')).toEqual(
      expect.arrayContaining(['--omit=dev', '--ignore-scripts', ...SHIPPED_PROGRAMS.map((p) => `--workspace=${p}`)]),
    );
    expect(install.match(/--workspace=\S+/g)).toEqual(SHIPPED_PROGRAMS.map((p) => `--workspace=${p}`));
    // Only what npm linked for them keeps its dist/; every other workspace directory is removed.
    expect(assemble).toContain('for link in node_modules/@kubefed/*');
    expect(assemble).toContain('[ -d "$p/dist" ] || rm -rf "$p"');
    // Only they (and what they import) are built: turbo's graph also holds devDependencies, so
    // the workspaces not shipped (whose sources are not in the context) are excluded, with --only.
    const build = runs.find((r) => r.startsWith('npm run build'));
    expect(build?.match(/--filter=\S+/g)).toEqual([
      ...SHIPPED_PROGRAMS.map((p) => `--filter=${p}...`),
      ...NOT_SHIPPED.map((w) => `--filter=!@kubefed/${w}`),
    ]);
    expect(build?.split(/\s+/)).toContain('--only');
  });

  it('needs at run time none of kube-sim, the demo and the test helpers', () => {
    const closure = runtimeClosure(SHIPPED_PROGRAMS);
    // The dashboard is kubefedctl's (`kubefedctl dashboard`).
    expect(closure).toEqual([
      'api',
      'client',
      'controller-manager',
      'controllers',
      'dashboard',
      'kubefedctl',
      'queue',
      'runtime',
      'scheduler',
    ]);
    for (const w of NOT_SHIPPED) expect(closure).not.toContain(w);
  });

  it('ships what each of those packages publishes, which covers every directory its code reads beside dist/', () => {
    const assemble =
      buildStage
        .filter((i) => i.keyword === 'RUN')
        .map((i) => i.args)
        .find((r) => r.includes('/out')) ?? '';
    expect(assemble).toContain(`for f in $(node -p "require('/app/$p/package.json').files.join(' ')"); do cp -R "/app/$p/$f" "$p/"; done`);
    for (const dir of runtimeClosure(SHIPPED_PROGRAMS)) {
      const files = (JSON.parse(readFileSync(join(repoRoot, 'packages', dir, 'package.json'), 'utf8')) as { files?: string[] }).files ?? [];
      expect(files, `packages/${dir}/package.json files`).toContain('dist');
      // A directory the code finds next to its own (`new URL('../assets', import.meta.url)`) must be published.
      const read = walk(join(repoRoot, 'packages', dir, 'src'), new Set())
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .flatMap((f) =>
          [...readFileSync(join(repoRoot, 'packages', dir, 'src', f), 'utf8').matchAll(/new URL\('\.\.\/([\w-]+)/g)].map((m) => m[1] ?? ''),
        );
      for (const d of read) expect(files, `packages/${dir} reads ../${d} at run time`).toContain(d);
    }
  });

  it('sends the build no tests and, of kube-sim, the demo and the test helpers, only their package.json', () => {
    const context = buildContext();
    for (const w of NOT_SHIPPED) expect(context.filter((f) => f.startsWith(`packages/${w}/`))).toEqual([`packages/${w}/package.json`]);
    expect(context.filter((f) => /(^|\/)test\/|\.test\.ts$/.test(f))).toEqual([]);
    expect(context.filter((f) => f.startsWith('deploy/') || f.startsWith('docs/'))).toEqual([]);
    // Of tools/, only the build stamp step and the git-derived defaults it imports.
    expect(context.filter((f) => f.startsWith('tools/'))).toEqual(['tools/build-stamp.js', 'tools/package/stamp-dist.js']);
    const needed = ['package.json', 'package-lock.json', 'tsconfig.json', 'turbo.json', '.npmrc'];
    for (const dir of runtimeClosure(SHIPPED_PROGRAMS))
      needed.push(...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src/index.ts'].map((f) => `packages/${dir}/${f}`));
    expect(needed.filter((f) => !context.includes(f))).toEqual([]);
  });

  it('names no image :latest anywhere in deploy/ (manifests, Dockerfile, README)', () => {
    expect(walk(deployDir, new Set()).filter((f) => /[\w./-]+:latest\b/.test(readFileSync(join(deployDir, f), 'utf8')))).toEqual([]);
  });
});

/** The stamp build arguments the build stage declares, and a value of each for the test. */
const STAMP_ARGS = {
  GIT_VERSION: 'v1.2.3-rc.1',
  GIT_COMMIT: '0123456789abcdef0123456789abcdef01234567',
  GIT_TREE_STATE: 'clean',
  BUILD_DATE: '2026-01-02T03:04:05Z',
};

/**
 * The build stage run as Docker runs it, without Docker: the build context copied into a temporary
 * directory (as WORKDIR /app), node_modules linked in place of `npm ci` (its workspace links
 * pointing into the copy), then the stage's other RUN steps up to the /out assembly, with the
 * build arguments in their environment. The programs are then run as the image runs them.
 */
describe('the image build stamp (the build stage run without docker)', () => {
  const runs = buildStage.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const buildRun = runs.find((r) => r.startsWith('npm run build')) ?? '';
  const stampRun = runs.find((r) => r.includes('tools/package/stamp-dist.js')) ?? '';
  const entrypoint = JSON.parse(finalStage.find((i) => i.keyword === 'ENTRYPOINT')?.args ?? '[]') as string[];
  let app = '';
  let unstamped = '';

  const sh = (command: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> =>
    run('sh', ['-c', command], { cwd: app, env: { ...process.env, ...env }, timeout: 900_000 });
  const versions = async (): Promise<Record<string, string>[]> => {
    const env = { NODE_ENV: 'production' };
    const manager = await run(entrypoint[0]!, [...entrypoint.slice(1), '--version'], { cwd: app, env: { ...process.env, ...env } });
    const ctl = await run('node', ['packages/kubefedctl/dist/main.js', 'version'], { cwd: app, env: { ...process.env, ...env } });
    expect(manager.stderr).toBe('');
    expect(ctl.stderr).toBe('');
    return [versionFields('kubefed-controller-manager', manager.stdout), versionFields('kubefedctl', ctl.stdout)];
  };

  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'kubefed-image-build-'));
    for (const f of buildContext()) cpSync(join(repoRoot, f), join(app, f));
    mkdirSync(join(app, 'node_modules', '@kubefed'), { recursive: true });
    for (const e of readdirSync(join(repoRoot, 'node_modules')))
      if (e !== '@kubefed') symlinkSync(join(repoRoot, 'node_modules', e), join(app, 'node_modules', e));
    for (const w of workspaces) symlinkSync(join(app, 'packages', w.dir), join(app, 'node_modules', w.name));
    const built = await sh(buildRun, {});
    expect(built.code, built.stdout + built.stderr).toBe(0);
    unstamped = readFileSync(join(app, 'packages/api/dist/build-info.js'), 'utf8');
  }, 900_000);

  afterAll(() => {
    if (app !== '') rmSync(app, { recursive: true, force: true });
  });

  it('declares the stamp build arguments in the build stage and stamps after the build, before /out is assembled', () => {
    const declared = buildStage.filter((i) => i.keyword === 'ARG').flatMap((i) => i.args.split(/\s+/).map((a) => a.replace(/=.*$/, '')));
    expect(declared).toEqual(expect.arrayContaining(Object.keys(STAMP_ARGS)));
    for (const name of Object.keys(STAMP_ARGS)) expect(stampRun).toContain(`"$${name}"`);
    const order = [buildRun, stampRun, runs.find((r) => r.includes('/out'))].map((r) => runs.indexOf(r ?? ''));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((i) => i >= 0)).toBe(true);
  });

  it('with the build arguments, the controller manager (the entrypoint) and kubefedctl report them', async () => {
    writeFileSync(join(app, 'packages/api/dist/build-info.js'), unstamped);
    const stamped = await sh(stampRun, STAMP_ARGS);
    expect(stamped.code, stamped.stderr).toBe(0);
    for (const info of await versions()) {
      expect(info).toMatchObject({
        gitVersion: STAMP_ARGS.GIT_VERSION,
        gitCommit: STAMP_ARGS.GIT_COMMIT,
        gitTreeState: STAMP_ARGS.GIT_TREE_STATE,
        buildDate: STAMP_ARGS.BUILD_DATE,
      });
    }
  });

  it('without build arguments (and no .git in the context), both report the project version, unknown commit and the build time', async () => {
    writeFileSync(join(app, 'packages/api/dist/build-info.js'), unstamped);
    const before = Date.now() - 1000;
    const stamped = await sh(stampRun, Object.fromEntries(Object.keys(STAMP_ARGS).map((k) => [k, ''])));
    expect(stamped.code, stamped.stderr).toBe(0);
    const [manager, ctl] = await versions();
    expect(ctl).toEqual(manager);
    const version = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(manager).toMatchObject({ gitVersion: `v${version.version}`, gitCommit: 'unknown', gitTreeState: 'unknown' });
    expect(Date.parse(manager!['buildDate']!)).toBeGreaterThanOrEqual(before);
  });

  it('refuses a malformed build argument, naming it', async () => {
    writeFileSync(join(app, 'packages/api/dist/build-info.js'), unstamped);
    const r = await sh(stampRun, { ...STAMP_ARGS, GIT_TREE_STATE: 'modified' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--git-tree-state: "modified" is not clean, dirty or unknown');
  });
});

describe.skipIf(!existsSync(KUBECTL))(`the image in the manifests (needs ${KUBECTL}; skipped when it is missing)`, () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('tags kubefed-controller-manager with the package version and no image with :latest, in the base and both overlays', async () => {
    // bundled-redis builds only with the operator's password file: render a copy that has one.
    const copy = mkdtempSync(join(tmpdir(), 'kubefed-deploy-image-'));
    copies.push(copy);
    cpSync(deployDir, copy, { recursive: true });
    writeFileSync(join(copy, 'overlays', 'bundled-redis', 'redis-password.env'), 'password=0123456789abcdef\n');
    const version = workspaces.find((w) => w.name === '@kubefed/controller-manager')?.version;
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const dir of ['base', 'overlays/bundled-redis', 'overlays/external-redis']) {
      const rendered = await run(KUBECTL, ['kustomize', join(copy, dir)]);
      expect(rendered.stderr).toBe('');
      const images = parseAllDocuments(rendered.stdout)
        .map(
          (d) =>
            d.toJS() as {
              kind?: string;
              spec?: { template?: { spec?: { containers?: { image: string }[]; initContainers?: { image: string }[] } } };
            } | null,
        )
        .flatMap((o) =>
          [...(o?.spec?.template?.spec?.containers ?? []), ...(o?.spec?.template?.spec?.initContainers ?? [])].map((c) => c.image),
        );
      expect(images, dir).toContain(`kubefed-controller-manager:${version}`);
      for (const image of images) expect(image, `${dir}: ${image}`).toMatch(/^[^:@]+(:(?!latest$)[\w.-]+)?(@sha256:[0-9a-f]{64})?$/);
      for (const image of images) expect(image, `${dir}: ${image} has no tag or digest`).toMatch(/[:@]/);
    }
  });
});
