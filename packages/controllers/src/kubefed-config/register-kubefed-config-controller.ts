import { RESOURCES, defaultKubeFedConfigSpec, formatIssues, KUBEFED_CONFIG_NAME, type KubeFedConfigSpec } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isConflict, jsonEqual, type KubeObject } from '@kubefed/client';
import {
  done,
  listerWatcherFor,
  type Controller,
  type Informer,
  type Manager,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
  type Reader,
} from '@kubefed/runtime';
import { defaultKubeFedConfigObject } from './kubefed-config-settings.js';
import type { KubeFedConfigSource } from './kubefed-config-source.js';

/** The KubeFedConfig resource. */
export const KUBEFED_CONFIG_GVR = RESOURCES.kubeFedConfigs;

/** Options of {@link registerKubeFedConfigController}. */
export interface KubeFedConfigControllerOptions {
  /** Client of the host cluster. */
  host: DynamicClient;
  /** The kubefed namespace. */
  namespace: string;
  /** Receives every valid version of the config. */
  source: KubeFedConfigSource;
  /** Scope written into a created default config; default `Cluster`. */
  defaultScope?: 'Cluster' | 'Namespaced';
  /** Create the default config when none exists; default true (a workers-only process only reads it). */
  createDefault?: boolean;
}

/** What {@link registerKubeFedConfigController} added to the manager. */
export interface KubeFedConfigControllerHandle {
  readonly controller: Controller;
  readonly informer: Informer<KubeObject>;
}

/**
 * Reconciles the one KubeFedConfig `kubefed` of the kubefed namespace: creates the default one
 * (scope + every docs/kubefed-compatibility.md §6.1 default) when none exists, and hands each version to the
 * {@link KubeFedConfigSource}. An invalid config is logged once per version with every field
 * path, and the previous settings stay in force.
 */
export class KubeFedConfigReconciler implements Reconciler {
  #rejectedVersion: string | undefined;
  #appliedOnce = false;

  constructor(private readonly o: KubeFedConfigControllerOptions & { configs: Reader }) {}

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileOutcome> {
    const obj = this.o.configs.get(key);
    if (obj === undefined) {
      if (this.o.createDefault === false) return done();
      try {
        await this.o.host
          .resource(KUBEFED_CONFIG_GVR, this.o.namespace)
          .create(defaultKubeFedConfigObject(this.o.namespace, this.o.defaultScope) as unknown as KubeObject);
        ctx.logger.info('created the default KubeFedConfig');
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return done();
    }
    const result = this.o.source.apply(obj);
    if (result.applied) {
      if (result.changed || this.#rejectedVersion !== undefined || !this.#appliedOnce) {
        ctx.logger.info({ resourceVersion: obj.metadata.resourceVersion }, 'Using valid KubeFedConfig');
      }
      this.#rejectedVersion = undefined;
      this.#appliedOnce = true;
      if (this.o.createDefault !== false) await this.#completeFeatureGates(obj, ctx);
    } else if (this.#rejectedVersion !== obj.metadata.resourceVersion) {
      this.#rejectedVersion = obj.metadata.resourceVersion;
      ctx.logger.error(
        { issues: result.issues, reason: formatIssues(result.issues), resourceVersion: obj.metadata.resourceVersion },
        'invalid KubeFedConfig; keeping the previous settings',
      );
    }
    return done();
  }

  /**
   * Writes every known feature gate into a stored list that names only some, sorted by name, as
   * KubeFed's defaulting webhook did (docs/kubefed-compatibility.md §6.1): a CRD default cannot
   * add items to a list the user gave. The write is conditional on the resourceVersion read; a
   * conflict means a newer version, which is reconciled in its turn.
   */
  async #completeFeatureGates(obj: KubeObject, ctx: ReconcileContext): Promise<void> {
    const spec = obj['spec'] as KubeFedConfigSpec | undefined;
    if (spec?.featureGates === undefined) return;
    const complete = defaultKubeFedConfigSpec(spec).featureGates ?? [];
    if (jsonEqual(complete, spec.featureGates)) return;
    try {
      await this.o.host
        .resource(KUBEFED_CONFIG_GVR, this.o.namespace)
        .patch(
          KUBEFED_CONFIG_NAME,
          { metadata: { resourceVersion: obj.metadata.resourceVersion }, spec: { featureGates: complete } },
          'merge',
        );
      ctx.logger.info({ featureGates: complete }, 'added the unlisted feature gates to the KubeFedConfig with their defaults');
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

/**
 * Adds the KubeFedConfig handling to `manager`: an informer on `kubefed` in the kubefed
 * namespace and a controller (on every replica, not only the leader, so a standby is
 * configured too) running {@link KubeFedConfigReconciler}. The key is enqueued at once, so a
 * missing config is created at start-up.
 */
export function registerKubeFedConfigController(manager: Manager, options: KubeFedConfigControllerOptions): KubeFedConfigControllerHandle {
  const informer = manager.informer({
    name: 'kubefedconfigs',
    listerWatcher: listerWatcherFor(options.host.resource(KUBEFED_CONFIG_GVR, options.namespace), {
      fieldSelector: `metadata.name=${KUBEFED_CONFIG_NAME}`,
    }),
  });
  const reconciler = new KubeFedConfigReconciler({ ...options, configs: informer.store });
  const controller = manager.controller({ name: 'kubefedconfig', reconciler, needLeaderElection: false }).watch(informer);
  controller.queue.add(`${options.namespace}/${KUBEFED_CONFIG_NAME}`);
  return { controller, informer };
}
