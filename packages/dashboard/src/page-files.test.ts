import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pageFileList, pageFiles } from './page-files.js';

const indexHtml = readFileSync(new URL('../assets/index.html', import.meta.url), 'utf8');
/** The URL paths index.html loads: its import map's targets, its script and stylesheet. */
const loaded = [...indexHtml.matchAll(/"(\/(?:assets|vendor)\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);

describe('the page files', () => {
  it('lists every file index.html loads (import map, script, stylesheet), as the single executable embeds them', () => {
    expect(loaded).toEqual(
      expect.arrayContaining(['/assets/app.js', '/assets/style.css', '/vendor/lit/index.js', '/vendor/chart.js/dist/chart.js']),
    );
    const list = pageFileList();
    expect(list.has('/assets/index.html')).toBe(true);
    expect(loaded.filter((p) => !list.has(p))).toEqual([]);
  });

  it('lists only what a browser loads: no package.json, type declarations or source maps', () => {
    const paths = [...pageFileList().keys()];
    expect(paths.filter((p) => /(\.d\.ts|\.map|package\.json)$/.test(p))).toEqual([]);
  });

  it('reads the listed files from disk and nothing outside them', () => {
    const files = pageFiles();
    for (const [path, file] of pageFileList())
      if (loaded.includes(path)) expect(files.read(path)).toEqual(new Uint8Array(readFileSync(file)));
    for (const path of [
      '/assets/../package.json',
      '/vendor/lit/package.json',
      '/vendor/lit/../../package.json',
      '/vendor/unknown/index.js',
      '/assets/missing.js',
      '/assets/',
    ]) {
      expect(files.read(path), path).toBeUndefined();
    }
  });
});
