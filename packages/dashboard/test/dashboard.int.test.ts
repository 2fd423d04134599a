/// <reference lib="dom" />
// Browser tests of `kubefedctl dashboard` against a local federation (kube-sim members, Redis, the
// controller manager): Debian's Chromium driven by playwright-core, accessibility by axe-core.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ManagedProcess, REPO_ROOT, sourceEntry, type LocalFederation } from '@kubefed/testing';
import { useLocalFederation } from '@kubefed/testing/vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const ARTEFACTS = join(REPO_ROOT, '.tmp', 'dashboard-screenshots');
const NS = 'dashboard-test';
const FEDERATED = (resource: string) => ({ group: 'types.kubefed.io', version: 'v1beta1', resource });
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const run = promisify(execFile);

const fed = useLocalFederation({ members: ['member1', 'member2', 'member3'], setup: seed, timeoutMs: 240_000 });
let dashboard: ManagedProcess;
let url: string;
let browser: Browser;

function startDashboardProcess(args: readonly string[]): ManagedProcess {
  const env = { ...process.env };
  delete env['KUBECONFIG'];
  return new ManagedProcess(
    'kubefedctl-dashboard',
    [
      ...sourceEntry('packages/kubefedctl/src/main.ts'),
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      'dashboard',
      ...args,
    ],
    { env },
  );
}

async function dashboardUrl(p: ManagedProcess): Promise<string> {
  const line = await p.waitForLine(/Dashboard of the federation at .*: http:\/\//, { fromStart: true, timeoutMs: 60_000 });
  return /(http:\/\/\S+)/.exec(line)![1]!;
}

async function seed(fed: LocalFederation): Promise<void> {
  const host = fed.client('host');
  await host
    .resource({ group: '', version: 'v1', resource: 'namespaces' })
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const placement = { clusters: fed.members.map((name) => ({ name })) };
  await host.resource(FEDERATED('federatednamespaces'), NS).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedNamespace',
    metadata: { name: NS, namespace: NS },
    spec: { placement },
  });
  await host.resource(FEDERATED('federatedconfigmaps'), NS).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name: 'settings', namespace: NS },
    spec: {
      template: { data: { colour: 'blue' } },
      placement,
      overrides: [{ clusterName: 'member2', clusterOverrides: [{ path: '/data/colour', value: 'green' }] }],
    },
  });
  // A member copy labelled kubefed.io/managed=false: the control plane leaves it alone, so it stays unlike the rendering.
  const member1 = fed.client('member1');
  await member1
    .resource({ group: '', version: 'v1', resource: 'namespaces' })
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await member1.resource({ group: '', version: 'v1', resource: 'configmaps' }, NS).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kept', namespace: NS, labels: { 'kubefed.io/managed': 'false' } },
    data: { colour: 'red' },
  });
  await host.resource(FEDERATED('federatedconfigmaps'), NS).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name: 'kept', namespace: NS },
    spec: { template: { data: { colour: 'blue' } }, placement: { clusters: [{ name: 'member1' }] } },
  });
  await host.resource(FEDERATED('federateddeployments'), NS).create({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedDeployment',
    metadata: { name: 'web', namespace: NS },
    spec: {
      template: {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      },
      placement: { clusters: [{ name: 'member1' }] },
    },
  });
  await host.resource({ group: 'scheduling.kubefed.io', version: 'v1alpha1', resource: 'replicaschedulingpreferences' }, NS).create({
    apiVersion: 'scheduling.kubefed.io/v1alpha1',
    kind: 'ReplicaSchedulingPreference',
    metadata: { name: 'web', namespace: NS },
    spec: { targetKind: 'FederatedDeployment', totalReplicas: 6, clusters: { member1: { weight: 2 }, member2: { weight: 1 } } },
  });
}

/** What Chromium reported as blocked by the page's Content-Security-Policy, per page. */
const cspViolations = new WeakMap<Page, string[]>();

async function newPage(options: Parameters<Browser['newPage']>[0] = {}): Promise<Page> {
  const page = await browser.newPage(options);
  const violations: string[] = [];
  cspViolations.set(page, violations);
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  return page;
}

async function openPage(): Promise<Page> {
  const page = await newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await expect.poll(() => page.locator('.live').textContent(), { timeout: 30_000 }).toBe('live');
  return page;
}

const cell = (page: Page, row: string, cluster: string) => page.locator(`tr[data-id="${row}"] td.cell[data-cluster="${cluster}"]`);

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP rightly refuses an injected <script>.
  await page.evaluate(readFileSync(AXE, 'utf8'));
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> };
      }
    ).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
  });
  return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

describe('kubefedctl dashboard in Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: the dashboard's browser tests need Debian's Chromium (apt-get install -y chromium; .ci/run installs it)`,
      );
    await mkdir(ARTEFACTS, { recursive: true });
    dashboard = startDashboardProcess(['--redis-url', fed.redis.url, '--queue-prefix', fed.queuePrefix]);
    url = await dashboardUrl(dashboard);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  }, 60_000);

  it('prints a loopback URL and shows every member on the Clusters page with its region and queue', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+$/);
    const page = await openPage();
    for (const m of fed.members) {
      const row = page.locator(`kf-clusters tr[data-cluster="${m}"]`);
      await expect.poll(() => row.locator('td').first().textContent(), { timeout: 60_000 }).toContain('Ready');
    }
    await expect
      .poll(() => page.locator('kf-clusters tr[data-cluster="member1"] td').nth(5).textContent(), { timeout: 30_000 })
      .toMatch(/^\d+ \/ \d+ \/ \d+ \/ \d+$/);
    await page.screenshot({ path: join(ARTEFACTS, 'clusters.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows the sync queues from the controller manager's metrics with --metrics-url, and says when they cannot be read", async () => {
    const serving = JSON.parse(await fed.controllerManagers[0]!.waitForLine(/"msg":"serving health and metrics"/, { fromStart: true })) as {
      metrics: string;
    };
    const scraped = await (await fetch(`${serving.metrics}/metrics`)).text();
    for (const m of fed.members)
      expect(scraped).toMatch(new RegExp(`^kubefed_sync_queue_jobs\\{cluster="${m}",state="waiting"\\} \\d+$`, 'm'));
    const fromMetrics = startDashboardProcess(['--metrics-url', serving.metrics]);
    const unreadable = startDashboardProcess(['--metrics-url', 'http://127.0.0.1:1/metrics']);
    try {
      const page = await newPage();
      await page.goto(await dashboardUrl(fromMetrics));
      await expect
        .poll(() => page.locator('kf-clusters th').nth(6).textContent(), { timeout: 30_000 })
        .toContain('from the controller manager metrics');
      for (const m of fed.members) {
        await expect
          .poll(() => page.locator(`kf-clusters tr[data-cluster="${m}"] td`).nth(5).textContent(), { timeout: 30_000 })
          .toMatch(/^\d+ \/ \d+ \/ \d+ \/ \d+$/);
      }
      await page.screenshot({ path: join(ARTEFACTS, 'clusters-from-metrics.png'), fullPage: true });
      await page.goto(await dashboardUrl(unreadable));
      await expect
        .poll(() => page.locator('kf-clusters tr[data-cluster="member1"] td').nth(5).textContent(), { timeout: 30_000 })
        .toBe('unavailable');
      expect(await page.locator('.queue-problem').textContent()).toContain('http://127.0.0.1:1/metrics');
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
    } finally {
      await Promise.all([fromMetrics.stop(), unreadable.stop()]);
    }
  }, 120_000);

  it('shows each object against each member with its status, and the detail of a row', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    const settings = `configmaps/${NS}/settings`;
    for (const m of fed.members) await expect.poll(() => cell(page, settings, m).textContent(), { timeout: 60_000 }).toBe('OK');
    await expect.poll(() => cell(page, `deployments.apps/${NS}/web`, 'member1').textContent(), { timeout: 60_000 }).toBe('OK');
    expect(await cell(page, settings, 'member1').getAttribute('title')).toContain('member1: OK');
    await page.locator(`tr[data-id="${settings}"] button.row`).click();
    await page.locator('kf-object-detail select').selectOption('member2');
    const detail = page.locator('kf-object-detail');
    await expect.poll(() => detail.locator('pre[data-part="live"]').textContent(), { timeout: 30_000 }).toContain('"colour": "green"');
    const rendered = await detail.locator('pre[data-part="rendered"]').textContent();
    expect(rendered).toContain('"colour": "green"');
    expect(rendered).toContain('"kubefed.io/managed": "true"');
    await expect.poll(() => detail.locator('section.differences').getAttribute('data-differ'), { timeout: 30_000 }).toBe('false');
    await page.screenshot({ path: join(ARTEFACTS, 'objects.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows the rendered object beside a member copy that differs from it, field by field', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    const kept = `configmaps/${NS}/kept`;
    await expect.poll(() => cell(page, kept, 'member1').textContent(), { timeout: 60_000 }).toBe('ManagedLabelFalse');
    await page.locator(`tr[data-id="${kept}"] button.row`).click();
    const detail = page.locator('kf-object-detail');
    await expect.poll(() => detail.locator('section.differences').getAttribute('data-differ'), { timeout: 30_000 }).toBe('true');
    expect(await detail.locator('pre[data-part="rendered"]').textContent()).toContain('"colour": "blue"');
    expect(await detail.locator('pre[data-part="live"]').textContent()).toContain('"colour": "red"');
    const colour = detail.locator('tr[data-path="/data/colour"] td');
    expect(await colour.allTextContents()).toEqual(['"blue"', '"red"']);
    expect(await detail.locator('tr[data-path="/metadata/labels/kubefed.io~1managed"] td').allTextContents()).toEqual([
      '"true"',
      '"false"',
    ]);
    await page.screenshot({ path: join(ARTEFACTS, 'objects-detail-differs.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it('moves between matrix rows with the arrow keys and opens one with Enter', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    const buttons = page.locator('button.row');
    await expect.poll(() => buttons.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await buttons.first().focus();
    await page.keyboard.press('ArrowDown');
    expect(await buttons.nth(1).evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('End');
    expect(await buttons.last().evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => buttons.last().getAttribute('aria-expanded')).toBe('true');
    await page.close();
  }, 60_000);

  it('shows a kubectl change without a reload', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    const settings = `configmaps/${NS}/settings`;
    await expect.poll(() => cell(page, settings, 'member3').textContent(), { timeout: 60_000 }).toBe('OK');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const placement = JSON.stringify({ spec: { placement: { clusters: [{ name: 'member1' }, { name: 'member2' }] } } });
    await run('kubectl', [
      '--kubeconfig',
      fed.kubeconfigPath,
      '--context',
      'host',
      'patch',
      'federatedconfigmap',
      'settings',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      placement,
    ]);
    await expect.poll(() => cell(page, settings, 'member3').textContent(), { timeout: 30_000 }).toBe('—');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    await page.close();
  }, 90_000);

  it('shows planned against actual replicas of an RSP with the plan explanation', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Scheduling' }).click();
    const rsp = page.locator(`section[data-rsp="${NS}/web"]`);
    await expect.poll(() => rsp.locator('tr[data-cluster="member1"] td').first().textContent(), { timeout: 60_000 }).toBe('4');
    expect(await rsp.locator('tr[data-cluster="member2"] td').first().textContent()).toBe('2');
    expect(await rsp.locator('tr[data-cluster="member1"] td').last().textContent()).toContain('member1: 4 replicas');
    await expect.poll(() => rsp.locator('canvas').count()).toBe(1);
    await page.screenshot({ path: join(ARTEFACTS, 'scheduling.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);

  it('turns the column of an unreachable member red', async () => {
    const page = await openPage();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    const header = page.locator('th.cluster[data-cluster="member3"]');
    await expect.poll(() => header.getAttribute('class'), { timeout: 30_000 }).toContain('tone-none');
    await fed.fault('member3', { unreachable: true });
    try {
      await expect.poll(() => header.getAttribute('class'), { timeout: 120_000, interval: 500 }).toContain('tone-error');
      expect(await header.evaluate((th) => getComputedStyle(th).backgroundColor)).toBe('rgb(164, 14, 38)');
      await page.screenshot({ path: join(ARTEFACTS, 'objects-member3-unreachable.png'), fullPage: true });
    } finally {
      fed.restoreFaults();
    }
    await page.close();
  }, 180_000);

  it('stops on Ctrl-C (SIGINT): exits 0 and frees its port, even with a page connected', async () => {
    const p = startDashboardProcess([]);
    const printed = await dashboardUrl(p);
    const port = Number(new URL(printed).port);
    const authorization = `Bearer ${new URLSearchParams(new URL(printed).hash.slice(1)).get('token') ?? ''}`;
    expect((await fetch(new URL('api/view', printed), { headers: { authorization } })).status).toBe(200);
    // An open event stream, as a browser tab keeps: closing must not wait for it.
    const events = await fetch(new URL('api/events', printed), { headers: { authorization } });
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    try {
      expect(await p.stop('SIGINT', 20_000)).toBe(0);
    } finally {
      await events.body?.cancel().catch(() => undefined);
    }
    expect(p.lines.join('\n')).not.toMatch(/error/i);
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
    });
  }, 90_000);

  it('logs in from the printed URL, drops the token from the address bar, and loads under its CSP without a violation', async () => {
    const page = await openPage();
    expect(page.url()).not.toContain('token');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    for (const tab of ['Federated objects', 'Scheduling', 'Clusters']) await page.getByRole('tab', { name: tab }).click();
    await page.getByRole('tab', { name: 'Federated objects' }).click();
    await page.locator(`tr[data-id="configmaps/${NS}/settings"] button.row`).click();
    await expect.poll(() => page.locator('kf-object-detail pre[data-part="live"]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(() => page.locator('.live').textContent(), { timeout: 30_000 }).toBe('live');
    expect(cspViolations.get(page)).toEqual([]);
    await page.close();
    // Without the fragment (another local user's browser), the page asks for the token.
    const stranger = await newPage();
    await stranger.goto(new URL(url).origin);
    await expect.poll(() => stranger.getByLabel('Token printed by kubefedctl dashboard').count(), { timeout: 30_000 }).toBe(1);
    await stranger.close();
  }, 120_000);

  it('requires the printed token on a non-loopback address (401 without it)', async () => {
    const open = startDashboardProcess(['--address', '0.0.0.0']);
    try {
      const printed = await dashboardUrl(open);
      const token = /#token=([^&\s]+)/.exec(printed)?.[1];
      expect(token).toBeDefined();
      expect((await open.waitForLine(/^Token .*: /, { fromStart: true })).endsWith(token!)).toBe(true);
      const port = new URL(printed).port;
      const api = `http://127.0.0.1:${port}/api/view`;
      expect((await fetch(api)).status).toBe(401);
      expect((await fetch(api, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(api, { headers: { authorization: `Bearer ${token!}` } })).status).toBe(200);
      const page = await newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.getByLabel('Token printed by kubefedctl dashboard').fill('wrong');
      await page.getByRole('button', { name: 'Open' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toBe('That token was not accepted.');
      await page.getByLabel('Token printed by kubefedctl dashboard').fill(token!);
      await page.getByRole('button', { name: 'Open' }).click();
      await expect.poll(() => page.locator('.live').textContent(), { timeout: 30_000 }).toBe('live');
      await page.close();
    } finally {
      await open.stop();
    }
  }, 90_000);
});
