import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBuildInfo } from './version.js';

const dirs: string[] = [];

function packageDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubefedctl-version-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('readBuildInfo', () => {
  it('takes the version from package.json and commit, tree state and date from build-info.json', () => {
    const dir = packageDir({
      'package.json': JSON.stringify({ version: '1.2.3' }),
      'build-info.json': JSON.stringify({ gitCommit: 'abc123', gitTreeState: 'clean', buildDate: '2026-01-02T03:04:05Z' }),
    });
    expect(readBuildInfo({ packageDir: dir, entryFile: path.join(dir, 'package.json'), nodeVersion: 'v20.1.0', os: 'linux', arch: 'x64' })).toEqual({
      gitVersion: 'v1.2.3',
      gitCommit: 'abc123',
      gitTreeState: 'clean',
      buildDate: '2026-01-02T03:04:05Z',
      nodeVersion: 'v20.1.0',
      platform: 'linux/x64',
    });
  });

  it('reports unknown commit and tree state outside a git checkout without build-info.json', () => {
    const dir = packageDir({ 'package.json': JSON.stringify({ version: '0.1.0' }) });
    const info = readBuildInfo({ packageDir: dir, entryFile: path.join(dir, 'missing.js'), nodeVersion: 'v20.1.0', os: 'darwin', arch: 'arm64' });
    expect(info).toMatchObject({ gitVersion: 'v0.1.0', gitCommit: 'unknown', gitTreeState: 'unknown', buildDate: 'unknown', platform: 'darwin/arm64' });
  });
});
