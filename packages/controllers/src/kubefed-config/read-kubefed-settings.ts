import { readFile } from 'node:fs/promises';
import { formatIssues, KUBEFED_CONFIG_NAME, KubeFedError, parseKubeFedConfigYaml } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isNotFound, type KubeObject } from '@kubefed/client';
import { sleep, systemClock } from '@kubefed/runtime';
import { defaultKubeFedConfigObject, type KubeFedConfigSettings, resolveKubeFedConfig } from './kubefed-config-settings.js';
import { KUBEFED_CONFIG_GVR } from './register-kubefed-config-controller.js';

/** The stored KubeFedConfig cannot be used; the message names the object and every bad field. */
export class InvalidKubeFedConfigError extends KubeFedError {}

/** Options of {@link readKubeFedSettings}. */
export interface ReadKubeFedSettingsOptions {
  /** Scope of the KubeFedConfig created when none exists (`DEFAULT_KUBEFED_SCOPE`); default `Cluster`. */
  readonly defaultScope?: 'Cluster' | 'Namespaced' | undefined;
  /** Create the KubeFedConfig when none exists; false waits for another process to create it. Default true. */
  readonly create?: boolean | undefined;
  /** Pause between reads while waiting; default 1 s. */
  readonly retryMs?: number | undefined;
  /** Stops the wait (rejects with the abort reason). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The settings the control plane starts with, read from the KubeFedConfig `kubefed` of the
 * kubefed namespace, as KubeFed's controller manager does at start (`cmd/controller-manager/app`):
 * the environment's default scope only seeds the config created when none exists. The scope
 * (what every controller watches) and the `PushReconciler` gate (whether propagation runs at
 * all) are taken from here once, before any controller starts.
 *
 * @throws InvalidKubeFedConfigError naming the fields when the stored KubeFedConfig is invalid.
 */
export async function readKubeFedSettings(
  host: DynamicClient,
  namespace: string,
  options: ReadKubeFedSettingsOptions = {},
): Promise<KubeFedConfigSettings> {
  const configs = host.resource(KUBEFED_CONFIG_GVR, namespace);
  for (;;) {
    let stored: KubeObject | undefined;
    try {
      stored = await configs.get(KUBEFED_CONFIG_NAME);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (stored === undefined && options.create !== false) {
      const created = defaultKubeFedConfigObject(namespace, options.defaultScope);
      try {
        stored = await configs.create(created as unknown as KubeObject);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        continue;
      }
    }
    if (stored !== undefined) {
      const resolved = resolveKubeFedConfig(stored);
      if (!resolved.ok)
        throw new InvalidKubeFedConfigError(
          `invalid KubeFedConfig "${namespace}/${KUBEFED_CONFIG_NAME}": ${formatIssues(resolved.issues)}`,
        );
      return resolved.settings;
    }
    await sleep(systemClock, options.retryMs ?? 1000, options.signal);
    options.signal?.throwIfAborted();
  }
}

/**
 * The settings from a KubeFedConfig YAML file (the controller manager's `--kubefed-config`, as
 * KubeFed's): its namespace is taken to be the kubefed namespace; missing fields take the
 * defaults, then the same validation as for the object in the API applies.
 *
 * @throws InvalidKubeFedConfigError naming the file (unreadable, not YAML) or every bad field.
 */
export async function readKubeFedSettingsFile(file: string, namespace: string): Promise<KubeFedConfigSettings> {
  let parsed: unknown;
  try {
    parsed = parseKubeFedConfigYaml(await readFile(file, 'utf8'));
  } catch (err) {
    throw new InvalidKubeFedConfigError(`--kubefed-config ${file}: ${(err as Error).message}`, { cause: err });
  }
  const obj =
    typeof parsed === 'object' && parsed !== null
      ? { ...parsed, metadata: { ...(parsed as { metadata?: object }).metadata, namespace } }
      : parsed;
  const resolved = resolveKubeFedConfig(obj);
  if (!resolved.ok)
    throw new InvalidKubeFedConfigError(`invalid KubeFedConfig in --kubefed-config ${file}: ${formatIssues(resolved.issues)}`);
  return resolved.settings;
}
