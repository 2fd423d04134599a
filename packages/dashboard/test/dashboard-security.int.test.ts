// `kubefedctl dashboard` as a user starts it, against a kube-sim host, answered over HTTP: the
// token is required on loopback too, is accepted only as `Authorization: Bearer` or traded for a
// session cookie (never from a query string), and every response carries the security headers.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { ManagedProcess, sourceEntry, startInProcessFederation, type InProcessFederation } from '@kubefed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let fed: InProcessFederation;
let dashboard: ManagedProcess;
let printed: URL;
let base: string;
let token: string;

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** A GET with a `Host` header of our choosing (fetch may not set one). */
function getWithHost(url: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** Logs in as the page does; resolves with the `name=value` of the session cookie and the whole Set-Cookie. */
async function login(): Promise<{ cookie: string; setCookie: string }> {
  const res = await fetch(`${base}/api/session`, { method: 'POST', headers: bearer(token) });
  expect(res.status).toBe(204);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

describe('kubefedctl dashboard over HTTP', () => {
  beforeAll(async () => {
    fed = await startInProcessFederation();
    const env = { ...process.env };
    delete env['KUBECONFIG'];
    dashboard = new ManagedProcess(
      'kubefedctl-dashboard',
      [
        ...sourceEntry('packages/kubefedctl/src/main.ts'),
        '--kubeconfig',
        fed.kubeconfigPath,
        '--host-cluster-context',
        'host',
        'dashboard',
      ],
      { env },
    );
    const line = await dashboard.waitForLine(/Dashboard of the federation at .*: http:\/\//, { fromStart: true, timeoutMs: 60_000 });
    printed = new URL(/(http:\/\/\S+)/.exec(line)![1]!);
    base = printed.origin;
    token = new URLSearchParams(printed.hash.slice(1)).get('token') ?? '';
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
    await fed?.stop();
  }, 30_000);

  it('prints a loopback URL that carries the token in its fragment only, and prints the token', async () => {
    expect(printed.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed.pathname).toBe('/');
    expect(printed.search).toBe('');
    expect(token).toMatch(/^[\w-]{40,}$/);
    expect(await dashboard.waitForLine(/^Token .*: /, { fromStart: true })).toMatch(new RegExp(`: ${token}$`));
  });

  it('answers the API with 401 on loopback without the token', async () => {
    for (const path of ['/api/view', '/api/events', '/api/detail?type=x&name=y']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(401);
      await res.body?.cancel();
    }
    expect((await fetch(`${base}/api/view`, { headers: bearer('wrong') })).status).toBe(401);
  });

  it('does not take the token from a query string', async () => {
    for (const path of ['/api/view', '/api/events']) {
      const res = await fetch(`${base}${path}?token=${token}`);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain('not accepted');
    }
    const session = await fetch(`${base}/api/session?token=${token}`, { method: 'POST' });
    expect(session.status).toBe(401);
    expect(session.headers.get('set-cookie')).toBeNull();
  });

  it('answers with the token as Authorization: Bearer', async () => {
    const res = await fetch(`${base}/api/view`, { headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty('clusters');
  });

  it('trades the token for an HttpOnly SameSite=Strict session cookie that the API and the event stream take', async () => {
    const { cookie, setCookie } = await login();
    expect(setCookie).toMatch(new RegExp(`^kubefed-dashboard-${printed.port}=[\\w-]{40,};`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(cookie).not.toContain(token);
    expect((await fetch(`${base}/api/view`, { headers: { cookie } })).status).toBe(200);
    const events = await fetch(`${base}/api/events`, { headers: { cookie } });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    await events.body?.cancel();
    const forged = `${cookie.split('=')[0]!}=${'A'.repeat(43)}`;
    expect((await fetch(`${base}/api/view`, { headers: { cookie: forged } })).status).toBe(401);
    const refused = await fetch(`${base}/api/session`, { method: 'POST', headers: bearer('wrong') });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('sends Content-Security-Policy, nosniff and no-referrer on every response: page, files, API, errors', async () => {
    const { cookie } = await login();
    const responses: [string, number, Response | Awaited<ReturnType<typeof getWithHost>>][] = [
      ['page', 200, await fetch(`${base}/`)],
      ['page script', 200, await fetch(`${base}/assets/app.js`)],
      ['stylesheet', 200, await fetch(`${base}/assets/style.css`)],
      ['vendor module', 200, await fetch(`${base}/vendor/lit/index.js`)],
      ['API', 200, await fetch(`${base}/api/view`, { headers: { cookie } })],
      ['login', 204, await fetch(`${base}/api/session`, { method: 'POST', headers: bearer(token) })],
      ['API without the token', 401, await fetch(`${base}/api/view`)],
      ['unknown object', 404, await fetch(`${base}/api/detail?type=x&name=y`, { headers: { cookie } })],
      ['missing file', 404, await fetch(`${base}/assets/missing.js`)],
      ['unknown path', 404, await fetch(`${base}/nowhere`)],
      ['foreign Host (DNS rebinding)', 403, await getWithHost(`${base}/`, 'attacker.example')],
    ];
    for (const [what, status, res] of responses) {
      const header = (name: string): string | null =>
        res instanceof Response ? res.headers.get(name) : ((res.headers[name] as string | undefined) ?? null);
      expect(res.status, what).toBe(status);
      const csp = header('content-security-policy') ?? '';
      expect(csp, what).toContain("default-src 'none'");
      expect(csp, what).toMatch(/script-src 'self' 'sha256-[\w+/=]+'(;|$)/);
      expect(csp, what).toContain("style-src 'self'");
      expect(csp, what).toContain("frame-ancestors 'none'");
      expect(csp, what).not.toContain('unsafe-');
      expect(header('x-content-type-options'), what).toBe('nosniff');
      expect(header('referrer-policy'), what).toBe('no-referrer');
      if (res instanceof Response) await res.body?.cancel();
    }
  });

  it("allows, of inline script, exactly the page's import map, by its hash, and the page has no inline style", async () => {
    const res = await fetch(`${base}/`);
    const html = await res.text();
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => m[2]!.trim() !== '');
    expect(inline.map((m) => m[1]!.trim())).toEqual(['type="importmap"']);
    const hash = createHash('sha256').update(inline[0]![2]!).digest('base64');
    expect(res.headers.get('content-security-policy')).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(html).not.toMatch(/\sstyle=|<style/);
  });
});
