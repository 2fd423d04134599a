import { type BuildInfo, formatBuildInfo } from '@kubefed/api';

export type { BuildInfo };

/**
 * Renders the version like KubeFed's `kubefedctl version` (one line,
 * `kubefedctl version: {gitVersion: "v0.1.0", ...}`), or as JSON with `output: 'json'`. The values
 * come from the build stamp kubefed-controller-manager reports too (@kubefed/api build-info).
 */
export function formatVersion(info: BuildInfo, output: 'text' | 'json' = 'text'): string {
  return formatBuildInfo('kubefedctl', info, output);
}
