// The single-file kubefedctl as users get it: `npm run package:kubefedctl` (tools/package/),
// copied alone into an empty directory outside the repository, run as a program and as the
// kubectl plugin `kubectl-kubefed` with the real kubectl, loading its shell completion scripts into
// real bash, zsh and fish, and serving `kubefedctl dashboard`'s page from the files embedded in it.
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CliRun, SimFederation } from './sim-federation.js';
import { expectCheckoutCommit, repoRoot } from './checkout.js';

const productionNode = fs.readFileSync(path.join(repoRoot, 'tools/node/production-version'), 'utf8').trim();
const kubectl = '/usr/bin/kubectl';

let dir: string;
let exe: string;
let fed: SimFederation;

/** Runs `file args` in the empty directory with a bare environment (no NODE_PATH, no KUBECONFIG). */
function runIn(file: string, args: string[], extraPath = ''): Promise<CliRun> {
  const env = { PATH: `${extraPath}${extraPath === '' ? '' : ':'}/usr/bin:/bin`, HOME: dir };
  return new Promise((resolve) => {
    execFile(file, args, { cwd: path.dirname(exe), env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-package-'));
  const built = path.join(dir, 'build', 'kubefedctl-linux-x64');
  execFileSync(process.execPath, [path.join(repoRoot, 'tools/package/kubefedctl.js'), '--out', built], {
    cwd: repoRoot,
    stdio: 'ignore',
    timeout: 600_000,
  });
  exe = path.join(dir, 'empty', 'kubefedctl');
  fs.mkdirSync(path.dirname(exe));
  fs.copyFileSync(built, exe);
  fs.chmodSync(exe, 0o755);
  fs.rmSync(path.dirname(built), { recursive: true });
  fed = await SimFederation.start(['host', 'member1']);
  await fed.controlPlane('host', 'kube-federation-system');
}, 660_000);

afterAll(async () => {
  await fed?.[Symbol.asyncDispose]();
  fs.rmSync(dir, { recursive: true, force: true });
});

function joinDryRun(): string[] {
  return [
    'join',
    'member1',
    '--cluster-context',
    'member1',
    '--host-cluster-context',
    'host',
    '--dry-run',
    '-o',
    'yaml',
    '--kubeconfig',
    fed.kubeconfig,
  ];
}

/**
 * Writes the executable's `completion <shell>` script to a file outside its directory, loads it
 * into a real shell with the executable first on PATH (as `kubefedctl`, which the script runs),
 * and returns the candidates its completion function gives for `typed` (the last word being typed).
 * zsh runs without compsys: `compdef` and `_describe` are functions that print the candidates.
 */
async function completeIn(shell: 'bash' | 'zsh' | 'fish', typed: string[]): Promise<string[]> {
  const printed = await runIn(exe, ['completion', shell]);
  expect(printed.stderr).toBe('');
  expect(printed.code).toBe(0);
  const script = path.join(dir, `kubefedctl.${shell}`);
  fs.writeFileSync(script, printed.stdout);
  const words = ['kubefedctl', ...typed];
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const programs = {
    bash: [
      `source '${script}'`,
      `COMP_WORDS=(${quoted})`,
      `COMP_CWORD=${typed.length}`,
      `COMP_LINE='${words.join(' ')}'`,
      'COMP_POINT=${#COMP_LINE}',
      '_kubefedctl_completion',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ],
    zsh: [
      'compdef() { :; }',
      '_describe() { print -rl -- "${(@P)2}"; }',
      `source '${script}'`,
      `words=(${quoted})`,
      `CURRENT=${words.length}`,
      '_kubefedctl_completion',
    ],
    fish: [`source '${script}'`, `complete -C '${words.join(' ')}'`],
  };
  const args = { bash: ['--norc', '--noprofile', '-c'], zsh: ['-f', '-c'], fish: ['--no-config', '-c'] }[shell];
  const env = { PATH: `${path.dirname(exe)}:/usr/bin:/bin`, HOME: dir, KUBECONFIG: fed.kubeconfig };
  const out = await new Promise<string>((resolve, reject) => {
    execFile(shell, [...args, programs[shell].join('\n')], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${shell} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
  // zsh prints `name:description`, fish `name<TAB>description`.
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(shell === 'fish' ? '\t' : /(?<!\\):/)[0] ?? '');
}

function kindsOf(yaml: string): string[] {
  return parseAllDocuments(yaml).map((d) => (d.toJS() as { kind: string }).kind);
}

describe('the packaged kubefedctl in an empty directory', () => {
  it('is the only file there and reports the stamped version on the production Node', async () => {
    expect(fs.readdirSync(path.dirname(exe))).toEqual(['kubefedctl']);
    const r = await runIn(exe, ['version', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as Record<string, string>;
    expectCheckoutCommit(info['gitCommit']);
    expect(info).toMatchObject({
      nodeVersion: `v${productionNode}`,
      platform: 'linux/x64',
    });
    expect(info['gitVersion']).toMatch(/^v\d+\.\d+\.\d+/);
    expect(info['gitVersion']).not.toMatch(/-dev$/);
    expect(info['buildDate']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('prints its help', async () => {
    const r = await runIn(exe, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: kubefedctl');
    expect(r.stdout).toContain('join');
  });

  it.each(['bash', 'zsh', 'fish'] as const)(
    'prints its %s completion script, which completes subcommands and kubeconfig contexts through the executable',
    async (shell) => {
      expect(await completeIn(shell, ['ver'])).toEqual(['version']);
      expect(await completeIn(shell, ['join', 'member1', '--cluster-context', 'mem'])).toEqual(['member1']);
    },
    120_000,
  );

  it('prints the objects join would create against kube-sim with join --dry-run -o yaml', async () => {
    const r = await runIn(exe, joinDryRun());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(kindsOf(r.stdout)).toContain('KubeFedCluster');
    expect(kindsOf(r.stdout)).toContain('ServiceAccount');
  });

  it('serves the dashboard page and the files it loads (its scripts, lit, Chart.js) from the file alone', async () => {
    // The dashboard watches every KubeFed type: all the CRDs, as an install has them.
    const crds = await runIn(kubectl, [
      '--kubeconfig',
      fed.kubeconfig,
      '--context',
      'host',
      'apply',
      '-k',
      path.join(repoRoot, 'deploy/crds'),
    ]);
    expect(crds.code, crds.stderr).toBe(0);
    const child = spawn(exe, ['dashboard', '--port', '0', '--kubeconfig', fed.kubeconfig, '--host-cluster-context', 'host'], {
      cwd: path.dirname(exe),
      env: { PATH: '/usr/bin:/bin', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let printed = '';
    child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    child.stderr.on('data', (d: Buffer) => (printed += d.toString()));
    try {
      const [url, token] = await vi.waitFor(
        () => {
          const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=([\w-]+)\s/.exec(printed);
          if (m === null) throw new Error(`no URL printed yet: ${printed}`);
          return [m[1]!, m[2]!];
        },
        { timeout: 90_000, interval: 100 },
      );
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<kf-dashboard>');
      // Everything index.html loads: its import map's targets, its script and stylesheet.
      const loaded = [...html.matchAll(/"(\/(?:assets|vendor)\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
      expect(loaded).toEqual(expect.arrayContaining(['/assets/app.js', '/vendor/lit/index.js', '/vendor/chart.js/dist/chart.js']));
      for (const file of loaded) {
        const r = await fetch(`${url}${file}`);
        expect(r.status, file).toBe(200);
        expect(r.headers.get('content-type'), file).toMatch(/^(text\/javascript|text\/css)/);
        expect((await r.arrayBuffer()).byteLength, file).toBeGreaterThan(0);
      }
      expect((await fetch(`${url}/vendor/lit/package.json`)).status).toBe(404);
      expect((await fetch(`${url}/api/view`)).status).toBe(401);
      expect((await fetch(`${url}/api/view`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 180_000);

  it('runs as the kubectl plugin kubectl-kubefed: kubectl kubefed join --dry-run with the real kubectl', async () => {
    const plugins = path.join(dir, 'plugins');
    fs.mkdirSync(plugins, { recursive: true });
    fs.copyFileSync(exe, path.join(plugins, 'kubectl-kubefed'));
    fs.chmodSync(path.join(plugins, 'kubectl-kubefed'), 0o755);
    const list = await runIn(kubectl, ['plugin', 'list'], plugins);
    expect(list.stdout).toContain(path.join(plugins, 'kubectl-kubefed'));
    const direct = await runIn(exe, joinDryRun());
    const r = await runIn(kubectl, ['kubefed', ...joinDryRun()], plugins);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(kindsOf(r.stdout)).toEqual(kindsOf(direct.stdout));
    const version = await runIn(kubectl, ['kubefed', 'version'], plugins);
    expect(version.stdout).toMatch(/^kubefedctl version: \{gitVersion: "v/);
    const help = await runIn(kubectl, ['kubefed', 'join', '--help'], plugins);
    expect(help.stdout).toMatch(/^Usage: kubectl kubefed join \[options\] <cluster-name>/);
    expect(help.stdout).toContain('Global Flags:');
  });
});
