import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, type RunIo } from '../cli.js';
import { redirectFile } from './dashboard-command.js';

/** Runs kubefedctl in-process; these cases fail on the flags, before any kubeconfig is read. */
async function cli(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io: RunIo = { stdout: () => undefined, stderr: (s) => void (stderr += s), env: { HOME: '/nonexistent-home' } };
  return { code: await run(argv, io), stderr };
}

describe('kubefedctl dashboard flags', () => {
  it.each([
    [
      'host:port without a scheme',
      ['--metrics-url', 'localhost:9090'],
      "option '--metrics-url <url>' argument 'localhost:9090' is invalid. expected the http(s) URL of the controller manager's metrics endpoint, e.g. http://127.0.0.1:9090/metrics.",
    ],
    [
      'a scheme other than http(s)',
      ['--metrics-url', 'ftp://cm:9090/metrics'],
      "option '--metrics-url <url>' argument 'ftp://cm:9090/metrics' is invalid. expected the http(s) URL of the controller manager's metrics endpoint, e.g. http://127.0.0.1:9090/metrics.",
    ],
    [
      'a text that is no URL at all',
      ['--metrics-url', '::'],
      "option '--metrics-url <url>' argument '::' is invalid. expected the http(s) URL of the controller manager's metrics endpoint, e.g. http://127.0.0.1:9090/metrics.",
    ],
    [
      '--metrics-url with --redis-url',
      ['--redis-url', 'redis://127.0.0.1:6379', '--metrics-url', 'http://127.0.0.1:9090/metrics'],
      "option '--metrics-url <url>' cannot be used with option '--redis-url <url>'",
    ],
    [
      'a port out of range',
      ['--port', '70000'],
      "option '--port <port>' argument '70000' is invalid. expected a port number from 0 to 65535 (0 picks a free one).",
    ],
  ])('exits 1 naming the flag for %s', async (_title, flags, message) => {
    const r = await cli(['dashboard', ...flags]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error: ${message}`);
  });
});

describe('kubefedctl dashboard --open', () => {
  it('hands the browser a private file that forwards to the URL, so the token stays off the command line', () => {
    const url = 'http://127.0.0.1:40123/#token=abc-</script>';
    const opened = redirectFile(url);
    const path = fileURLToPath(opened.file);
    try {
      expect(opened.file).not.toContain('token');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
      const html = readFileSync(path, 'utf8');
      expect(html).toContain('location.replace("http://127.0.0.1:40123/#token=abc-\\u003c/script>")');
      expect(html).not.toContain('</script>")');
    } finally {
      opened.remove();
    }
    expect(existsSync(dirname(path))).toBe(false);
  });
});
