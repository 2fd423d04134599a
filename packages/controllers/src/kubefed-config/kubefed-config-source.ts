import { jsonEqual } from '@kubefed/client';
import { KubeFedError, type ValidationIssue } from '@kubefed/api';
import { defaultKubeFedConfigObject, resolveKubeFedConfig, type KubeFedConfigSettings } from './kubefed-config-settings.js';

/** Result of {@link KubeFedConfigSource.apply}. */
export type ApplyResult =
  { readonly applied: true; readonly changed: boolean } | { readonly applied: false; readonly issues: readonly ValidationIssue[] };

/**
 * The KubeFedConfig the process runs with right now. Starts with KubeFed's defaults; `apply`
 * takes a KubeFedConfig object read from the API and, when valid, replaces the settings and
 * notifies subscribers (only when something changed). An invalid object changes nothing: the
 * previous (or default) settings stay in force.
 */
export class KubeFedConfigSource {
  #settings: KubeFedConfigSettings;
  readonly #listeners = new Set<(settings: KubeFedConfigSettings) => void>();

  /** Starts with `initial` (e.g. what `readKubeFedSettings` returned at start-up), default KubeFed's defaults. */
  constructor(namespace: string, initial?: KubeFedConfigSettings) {
    if (initial !== undefined) {
      this.#settings = initial;
      return;
    }
    const defaults = resolveKubeFedConfig(defaultKubeFedConfigObject(namespace));
    if (!defaults.ok) throw new KubeFedError('the default KubeFedConfig does not validate');
    this.#settings = defaults.settings;
  }

  /** The settings in force. */
  current(): KubeFedConfigSettings {
    return this.#settings;
  }

  /** Subscribes to changes; returns the unsubscribe function. A throwing listener is ignored. */
  onChange(listener: (settings: KubeFedConfigSettings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Validates `obj` (after docs/kubefed-compatibility.md §6.1 defaulting) and uses it when valid. */
  apply(obj: unknown): ApplyResult {
    const resolved = resolveKubeFedConfig(obj);
    if (!resolved.ok) return { applied: false, issues: resolved.issues };
    const changed = !jsonEqual(resolved.settings, this.#settings);
    this.#settings = resolved.settings;
    if (changed) {
      for (const l of this.#listeners) {
        try {
          l(resolved.settings);
        } catch {
          // a subscriber's failure must not stop configuration updates
        }
      }
    }
    return { applied: true, changed };
  }
}
