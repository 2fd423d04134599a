/**
 * The files of the dashboard page and where they are read from: the package's `assets/` (served
 * under `/assets/`) and the browser packages the page imports (served under `/vendor/<name>/`,
 * from node_modules, never a CDN). Normally read from the file system; in a Node single
 * executable application (the single-file kubefedctl, `tools/package/kubefedctl.js`) from its
 * embedded assets, whose keys are the URL paths {@link pageFileList} gives.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Browser packages served under `/vendor/<name>/`. */
const VENDOR_PACKAGES = ['lit', 'lit-html', 'lit-element', '@lit/reactive-element', 'chart.js', '@kurkle/color'] as const;

/** The kinds of file a browser loads for the page; nothing else is served or embedded. */
const PAGE_EXTENSIONS = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.png', '.ico', '.woff2']);

/** Reads the page's files by URL path (`/assets/app.js`, `/vendor/lit/index.js`). */
export interface PageFiles {
  /** The file's bytes, or undefined when the page has no such file. */
  read(urlPath: string): Uint8Array<ArrayBuffer> | undefined;
}

function packageDir(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`dashboard: cannot find the directory of package ${name}`);
    dir = up;
  }
}

/** URL path prefix → directory on disk, for each source of page files. */
function pageDirectories(): Map<string, string> {
  const dirs = new Map([['/assets/', fileURLToPath(new URL('../assets', import.meta.url))]]);
  for (const name of VENDOR_PACKAGES) dirs.set(`/vendor/${name}/`, packageDir(name));
  return dirs;
}

/** The file under `dir` a request's rest of path names, if it stays inside `dir` and is a page file. */
function fileIn(dir: string, rest: string): string | undefined {
  const path = posix.normalize(`/${rest}`);
  if (path.split('/').includes('..') || !PAGE_EXTENSIONS.has(extname(path))) return undefined;
  return join(dir, path);
}

function walk(dir: string, prefix: string): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e): [string, string][] => {
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(join(dir, e.name), `${prefix}${e.name}/`);
    return e.isFile() && PAGE_EXTENSIONS.has(extname(e.name)) ? [[`${prefix}${e.name}`, join(dir, e.name)]] : [];
  });
}

/** Every page file: URL path → file on disk. What the single executable embeds. */
export function pageFileList(): Map<string, string> {
  return new Map([...pageDirectories()].flatMap(([prefix, dir]) => walk(dir, prefix)));
}

class DirectoryPageFiles implements PageFiles {
  readonly #dirs = pageDirectories();

  read(urlPath: string): Uint8Array<ArrayBuffer> | undefined {
    for (const [prefix, dir] of this.#dirs) {
      if (!urlPath.startsWith(prefix)) continue;
      const file = fileIn(dir, urlPath.slice(prefix.length));
      return file !== undefined && existsSync(file) && statSync(file).isFile() ? new Uint8Array(readFileSync(file)) : undefined;
    }
    return undefined;
  }
}

class EmbeddedPageFiles implements PageFiles {
  readonly #getAsset: (key: string) => ArrayBuffer;

  constructor(getAsset: (key: string) => ArrayBuffer) {
    this.#getAsset = getAsset;
  }

  read(urlPath: string): Uint8Array<ArrayBuffer> | undefined {
    try {
      return new Uint8Array(this.#getAsset(urlPath));
    } catch {
      return undefined; // no asset of that key
    }
  }
}

/** The page files of the running program: embedded in a single executable, else on disk. */
export function pageFiles(): PageFiles {
  const sea = process.getBuiltinModule('node:sea');
  return sea.isSea() ? new EmbeddedPageFiles((key) => sea.getAsset(key)) : new DirectoryPageFiles();
}
