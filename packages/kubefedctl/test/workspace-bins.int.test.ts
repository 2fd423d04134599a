// The workspace bins as a user runs them after `npm ci` in a checkout: the node_modules/.bin links
// npm makes run packages/*/bin/*.js, which run the program's compiled dist/ (built by `npm ci`'s
// `prepare`) while it is current, and its TypeScript sources once a source file is newer
// (tools/bin/launch.js).
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCheckoutCommit, repoRoot } from './checkout.js';
import type { CliRun } from './sim-federation.js';

const bin = (name: string): string => path.join(repoRoot, 'node_modules/.bin', name);
const dirs: string[] = [];

function run(file: string, args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['KUBECONFIG'];
  return new Promise((resolve) => {
    execFile(file, args, { cwd: repoRoot, env, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

function gitHead(): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
}

/** The fields of KubeFed's one-line version form, `<program> version: {gitVersion: "v…", gitCommit: "…", …}`. */
function versionFields(program: string, stdout: string): Record<string, string> {
  const m = new RegExp(`^${program} version: \\{(.*)\\}\\n$`).exec(stdout);
  expect(m, stdout).not.toBeNull();
  return Object.fromEntries([...m![1]!.matchAll(/(\w+): ("(?:[^"\\]|\\.)*")/g)].map(([, k, v]) => [k!, JSON.parse(v!) as string]));
}

/** What both programs stamp alike: version, commit and build date. */
function pick(info: Record<string, string>): Record<string, string | undefined> {
  return { gitVersion: info['gitVersion'], gitCommit: info['gitCommit'], buildDate: info['buildDate'], nodeVersion: info['nodeVersion'] };
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Runs `launch(pkg, 'main')` of a copy of tools/bin/launch.js in the scratch checkout `root`. */
function launchIn(root: string, pkg: string): Promise<CliRun> {
  const script = `const { launch } = await import(${JSON.stringify(path.join(root, 'tools/bin/launch.js'))}); await launch('${pkg}', 'main');`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: root, env: { ...process.env, KUBEFED_LAUNCH_VERBOSE: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
      },
    );
  });
}

/**
 * A scratch checkout: the launcher, package `app` (importing workspace package `lib`) with a
 * src/main.ts and a dist/main.js that print which ran, `lib` with a source and a build.
 */
function scratchCheckout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'workspace-launch-'));
  dirs.push(root);
  fs.mkdirSync(path.join(root, 'tools/bin'), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, 'tools/bin/launch.js'), path.join(root, 'tools/bin/launch.js'));
  fs.copyFileSync(path.join(repoRoot, 'tools/build-stamp.js'), path.join(root, 'tools/build-stamp.js'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '0.0.1', type: 'module' }));
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'));
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('packages/app/package.json', JSON.stringify({ name: '@x/app', type: 'module', dependencies: { '@x/lib': '*' } }));
  write('packages/lib/package.json', JSON.stringify({ name: '@x/lib', type: 'module' }));
  write('packages/app/src/main.ts', "const from: string = 'sources';\nconsole.log(from);\n");
  write('packages/app/src/main.test.ts', '');
  write('packages/lib/src/deep/util.ts', 'export {};\n');
  // The builds are a second newer than their sources.
  const later = new Date(Date.now() + 1000);
  write('packages/app/dist/main.js', "console.log('compiled');\n");
  write('packages/lib/dist/deep/util.js', 'export {};\n');
  for (const f of ['packages/app/dist/main.js', 'packages/lib/dist/deep/util.js']) fs.utimesSync(path.join(root, f), later, later);
  return root;
}

describe('the launcher behind the bins', () => {
  it('runs dist/ while every source of the program and of the workspace packages it imports is older than its build', async () => {
    const root = scratchCheckout();
    const r = await launchIn(root, 'app');
    expect(r).toMatchObject({ code: 0, stdout: 'compiled\n', stderr: 'launch: packages/app/dist/main.js\n' });
  });

  it('runs the sources, saying why, once a source of an imported package is newer than its build', async () => {
    const root = scratchCheckout();
    const future = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, 'packages/lib/src/deep/util.ts'), future, future);
    const r = await launchIn(root, 'app');
    expect(r).toMatchObject({
      code: 0,
      stdout: 'sources\n',
      stderr: 'launch: packages/app/src/main.ts (lib/src/deep/util.ts is newer than its build)\n',
    });
  });

  it('runs the sources when a source file has no build at all', async () => {
    const root = scratchCheckout();
    fs.writeFileSync(path.join(root, 'packages/app/src/added.ts'), 'export {};\n');
    const r = await launchIn(root, 'app');
    expect(r.stdout).toBe('sources\n');
    expect(r.stderr).toBe('launch: packages/app/src/main.ts (app/src/added.ts has no build)\n');
  });
});

describe('workspace bins in a checkout', () => {
  it('kubefedctl runs its compiled dist/ when current (as after npm ci), and the sources with KUBEFED_SOURCE=1', async () => {
    // On CI, `npm ci`'s `prepare` built dist/ after the checkout, so it is current. A developer's
    // checkout may have edits since the last build: then the launcher must say which file.
    const verbose = (extra: NodeJS.ProcessEnv): Promise<CliRun> =>
      new Promise((resolve) => {
        execFile(
          bin('kubefedctl'),
          ['version'],
          { cwd: repoRoot, env: { ...process.env, KUBEFED_LAUNCH_VERBOSE: '1', ...extra } },
          (error, stdout, stderr) => {
            resolve({ code: error === null ? 0 : -1, stdout, stderr });
          },
        );
      });
    const compiled = await verbose({});
    if (process.env.CI) expect(compiled.stderr).toBe('launch: packages/kubefedctl/dist/main.js\n');
    else
      expect(compiled.stderr).toMatch(
        /^launch: packages\/kubefedctl\/(dist\/main\.js|src\/main\.ts \(\S+ (is newer than its build|has no build)\))\n$/,
      );
    const sources = await verbose({ KUBEFED_SOURCE: '1' });
    expect(sources.stderr).toBe('launch: packages/kubefedctl/src/main.ts (KUBEFED_SOURCE=1)\n');
    expect(sources.stdout).toBe(compiled.stdout);
    expect(compiled.code).toBe(0);
  });

  it('npm links kubefedctl, kube-sim and kubefed-controller-manager to the bin shims, not to dist/', () => {
    for (const [name, pkg] of [
      ['kubefedctl', 'kubefedctl'],
      ['kube-sim', 'kube-sim'],
      ['kubefed-controller-manager', 'controller-manager'],
    ] as const) {
      expect(fs.realpathSync(bin(name))).toBe(path.join(repoRoot, 'packages', pkg, 'bin', `${name}.js`));
    }
  });

  it('kubefedctl version reports the checkout commit as a -dev version', async () => {
    const r = await run(bin('kubefedctl'), ['version', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as Record<string, string>;
    expectCheckoutCommit(info['gitCommit']);
    expect(info).toMatchObject({
      gitVersion: expect.stringMatching(/^v\d+\.\d+\.\d+.*-dev$/) as unknown,
      buildDate: 'unknown',
      nodeVersion: process.version,
    });
  });

  it('npm run kubefedctl -- passes the arguments to kubefedctl', async () => {
    const r = await run('npm', ['run', '-s', 'kubefedctl', '--', 'join', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: kubefedctl join');
  });

  it('kubefed-controller-manager --help exits 0 with its usage', async () => {
    const r = await run(bin('kubefed-controller-manager'), ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: kubefed-controller-manager');
  });

  it("kubefed-controller-manager accepts the klog flags of KubeFed's Deployment, with one deprecation line", async () => {
    const r = await run(bin('kubefed-controller-manager'), ['--logtostderr=true', '--v=2', '--alsologtostderr', '--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubefed-controller-manager version: \{gitVersion: "v/);
    expect(r.stderr).toBe(
      "kubefed-controller-manager: warning: deprecated flags: --logtostderr, --alsologtostderr ignored (klog's log file, header and module flags have no effect here)\n",
    );
  });

  it('kubefedctl linked as the kubectl plugin kubectl-kubefed names itself kubectl kubefed in its help', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workspace-bins-'));
    dirs.push(dir);
    fs.symlinkSync(path.join(repoRoot, 'packages/kubefedctl/bin/kubefedctl.js'), path.join(dir, 'kubectl-kubefed'));
    const r = await run(path.join(dir, 'kubectl-kubefed'), ['join', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: kubectl kubefed join \[options\] <cluster-name>/);
  });

  it('kubefedctl version and kubefed-controller-manager --version print the same version and commit', async () => {
    // Both read the stamp the launcher takes from git at start: a commit landing between
    // the two starts changes the commit, so that case is run again.
    for (let attempt = 1; ; attempt++) {
      const head = gitHead();
      const [ctl, manager] = await Promise.all([
        run(bin('kubefedctl'), ['version']),
        run(bin('kubefed-controller-manager'), ['--version']),
      ]);
      expect(ctl.code, ctl.stderr).toBe(0);
      expect(manager.code, manager.stderr).toBe(0);
      const ctlInfo = versionFields('kubefedctl', ctl.stdout);
      const managerInfo = versionFields('kubefed-controller-manager', manager.stdout);
      if (ctlInfo['gitCommit'] !== managerInfo['gitCommit'] && gitHead() !== head && attempt < 3) continue;
      expectCheckoutCommit(ctlInfo['gitCommit']);
      expect(ctlInfo['gitVersion']).toMatch(/^v\d+\.\d+\.\d+.*-dev$/);
      expect(pick(managerInfo)).toEqual(pick(ctlInfo));
      return;
    }
  });

  it('kube-sim serves the clusters it writes into the kubeconfig and stops on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workspace-bins-'));
    dirs.push(dir);
    const kubeconfig = path.join(dir, 'kubeconfig');
    const child = spawn(bin('kube-sim'), ['--clusters', 'host,member1', '--kubeconfig', kubeconfig], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const ready = new Set<string>();
      for await (const line of readline.createInterface({ input: child.stdout })) {
        const m = /^cluster (\S+) ready at /.exec(line);
        if (m !== null) ready.add(m[1]!);
        if (ready.size === 2) break;
      }
      expect([...ready]).toEqual(['host', 'member1']);
      const r = await run('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, '--context', 'member1', 'get', 'namespaces', '-o', 'name']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('namespace/default');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
