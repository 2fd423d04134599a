import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_STAMP_GLOBAL, UNSTAMPED, buildInfo, buildStamp, formatBuildInfo } from './build-info.js';

const runtime = { nodeVersion: 'v24.1.0', os: 'linux', arch: 'x64' };
const stamp = { gitVersion: 'v0.1.0', gitCommit: 'abc123', gitTreeState: 'clean' as const, buildDate: '2026-01-02T03:04:05Z' };
const globals = globalThis as Record<string, unknown>;

afterEach(() => {
  delete globals[BUILD_STAMP_GLOBAL];
});

describe('buildStamp', () => {
  it('reports the unstamped values when no stamp is set', () => {
    expect(buildStamp()).toEqual(UNSTAMPED);
  });

  it('reads the stamp the source launcher sets on globalThis', () => {
    globals[BUILD_STAMP_GLOBAL] = stamp;
    expect(buildStamp()).toEqual(stamp);
  });

  it('ignores a malformed stamp', () => {
    globals[BUILD_STAMP_GLOBAL] = { gitVersion: 'v1', gitTreeState: 'shiny' };
    expect(buildStamp()).toEqual(UNSTAMPED);
  });
});

describe('buildInfo and formatBuildInfo', () => {
  it('adds the Node version and platform to the stamp', () => {
    expect(buildInfo(runtime, stamp)).toEqual({ ...stamp, nodeVersion: 'v24.1.0', platform: 'linux/x64' });
  });

  it("renders one line in KubeFed's form", () => {
    expect(formatBuildInfo('kubefedctl', buildInfo(runtime, stamp))).toBe(
      'kubefedctl version: {gitVersion: "v0.1.0", gitCommit: "abc123", gitTreeState: "clean", buildDate: "2026-01-02T03:04:05Z", nodeVersion: "v24.1.0", platform: "linux/x64"}\n',
    );
  });

  it('renders indented JSON', () => {
    expect(JSON.parse(formatBuildInfo('kubefedctl', buildInfo(runtime, stamp), 'json'))).toEqual({
      ...stamp,
      nodeVersion: 'v24.1.0',
      platform: 'linux/x64',
    });
  });
});
