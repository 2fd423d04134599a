/**
 * KubeFedConfig (core.kubefed.io/v1beta1): configuration of the controller manager
 * (docs/kubefed-compatibility.md §1.2), with the defaults of the mutating webhook (§6.1) and the rules of
 * the validating webhook (§6.2).
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { FEATURE_GATE_DEFAULTS, type FeatureGate, type Switch } from './constants.js';
import { objectMetaSchema } from './meta.js';
import {
  asArray,
  asRecord,
  describeObject,
  field,
  type IssueCollector,
  parseGoDuration,
  unwrap,
  validateWith,
  type ValidationResult,
} from './validation.js';

/** Control-plane scopes. */
export const KUBEFED_SCOPES = ['Cluster', 'Namespaced'] as const;
/**
 * Leader-election lock kinds, the lock types of client-go's `resourcelock.New` (client-go v0.22,
 * the one KubeFed v0.10.0 is built with): the leader record in the
 * `control-plane.alpha.kubernetes.io/leader` annotation of a ConfigMap (`configmaps`, KubeFed's
 * default) or an Endpoints (`endpoints`), a `coordination.k8s.io/v1` Lease (`leases`), or both an
 * old kind and the Lease (`configmapsleases`, `endpointsleases`: client-go's MultiLock). KubeFed's
 * own validation admits `configmaps` and `endpoints` only; the other three are ours.
 */
export const RESOURCE_LOCKS = ['configmaps', 'endpoints', 'leases', 'configmapsleases', 'endpointsleases'] as const;
/** One of {@link RESOURCE_LOCKS}. */
export type ResourceLockType = (typeof RESOURCE_LOCKS)[number];
/** Known feature gate names (sorted). */
export const FEATURE_GATE_NAMES = ['PushReconciler', 'RawResourceStatusCollection', 'SchedulerPreferences'] as const;
const SWITCHES = ['Enabled', 'Disabled'] as const;

const duration = z.string();
const int64 = z.number().int();

/** `spec.featureGates[]` item. */
export const featureGatesConfigSchema = z.object({ name: z.string(), configuration: z.string() });
export type FeatureGatesConfig = z.infer<typeof featureGatesConfigSchema>;

/** KubeFedConfig `spec`. Every block is optional in the shape; {@link validateKubeFedConfig} requires them. */
export const kubeFedConfigSpecSchema = z.object({
  scope: z.string().optional(),
  controllerDuration: z
    .object({ availableDelay: duration.optional(), unavailableDelay: duration.optional(), cacheSyncTimeout: duration.optional() })
    .optional(),
  leaderElect: z
    .object({
      leaseDuration: duration.optional(),
      renewDeadline: duration.optional(),
      retryPeriod: duration.optional(),
      resourceLock: z.string().optional(),
    })
    .optional(),
  featureGates: z.array(featureGatesConfigSchema).optional(),
  clusterHealthCheck: z
    .object({
      period: duration.optional(),
      failureThreshold: int64.optional(),
      successThreshold: int64.optional(),
      timeout: duration.optional(),
    })
    .optional(),
  syncController: z.object({ maxConcurrentReconciles: int64.optional(), adoptResources: z.string().optional() }).optional(),
  statusController: z.object({ maxConcurrentReconciles: int64.optional() }).optional(),
});
export type KubeFedConfigSpec = z.infer<typeof kubeFedConfigSpecSchema>;

/** A KubeFedConfig object (no status). */
export const kubeFedConfigSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
  spec: kubeFedConfigSpecSchema,
});
export type KubeFedConfig = z.infer<typeof kubeFedConfigSchema>;

/** The defaults of docs/kubefed-compatibility.md §6.1, serialised as Go would (`1m0s`, `5m0s`). */
export const KUBEFED_CONFIG_DEFAULTS = {
  controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
  leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  syncController: { maxConcurrentReconciles: 1, adoptResources: 'Enabled' },
  statusController: { maxConcurrentReconciles: 1 },
} as const;

/**
 * Returns `spec` with KubeFed's defaults filled in (§6.1): missing blocks and fields are set,
 * user values are kept; every known feature gate not listed is appended with its default and
 * the list is sorted by name. `scope` is never defaulted. Does not modify its argument.
 */
export function defaultKubeFedConfigSpec(spec: KubeFedConfigSpec): KubeFedConfigSpec {
  const d = KUBEFED_CONFIG_DEFAULTS;
  const gates = [...(spec.featureGates ?? [])];
  for (const name of FEATURE_GATE_NAMES) {
    if (!gates.some((g) => g.name === name)) gates.push({ name, configuration: FEATURE_GATE_DEFAULTS[name] });
  }
  gates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    ...spec,
    controllerDuration: { ...d.controllerDuration, ...spec.controllerDuration },
    leaderElect: { ...d.leaderElect, ...spec.leaderElect },
    featureGates: gates,
    clusterHealthCheck: { ...d.clusterHealthCheck, ...spec.clusterHealthCheck },
    syncController: { ...d.syncController, ...spec.syncController },
    statusController: { ...d.statusController, ...spec.statusController },
  };
}

/** Returns a copy of `config` whose spec has KubeFed's defaults (see {@link defaultKubeFedConfigSpec}). */
export function defaultKubeFedConfig(config: KubeFedConfig): KubeFedConfig {
  return { ...config, spec: defaultKubeFedConfigSpec(config.spec) };
}

/**
 * Whether each known feature gate is enabled, from `spec.featureGates` (unlisted gates take
 * their defaults).
 */
export function resolveFeatureGates(spec: KubeFedConfigSpec): Record<FeatureGate, boolean> {
  const result = { ...FEATURE_GATE_DEFAULTS } as Record<FeatureGate, Switch>;
  for (const g of spec.featureGates ?? []) {
    if ((FEATURE_GATE_NAMES as readonly string[]).includes(g.name)) result[g.name as FeatureGate] = g.configuration as Switch;
  }
  return {
    PushReconciler: result.PushReconciler === 'Enabled',
    RawResourceStatusCollection: result.RawResourceStatusCollection === 'Enabled',
    SchedulerPreferences: result.SchedulerPreferences === 'Enabled',
  };
}

function checkEnum(out: IssueCollector, path: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined || value === '') out.add(path, 'Required value');
  else if (typeof value === 'string' && !allowed.includes(value)) out.add(path, `must be one of ${allowed.join(', ')}`);
}

function checkDuration(out: IssueCollector, path: string, value: unknown): number | undefined {
  if (value === undefined) {
    out.add(path, 'Required value');
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  const ms = parseGoDuration(value);
  if (ms === undefined) {
    out.add(path, `Invalid value: ${JSON.stringify(value)}: must be a duration such as 20s, 1m0s or 1500ms`);
    return undefined;
  }
  if (ms <= 0) out.add(path, `Invalid value: ${JSON.stringify(value)}: should be greater than 0`);
  return ms > 0 ? ms : undefined;
}

function checkPositive(out: IssueCollector, path: string, value: unknown): void {
  if (value === undefined) out.add(path, 'Required value');
  else if (typeof value === 'number' && value <= 0) out.add(path, `Invalid value: ${value}: should be greater than 0`);
}

function requireBlock(out: IssueCollector, spec: unknown, key: string): unknown {
  const block = field(spec, key);
  if (block === undefined) out.add(`spec.${key}`, 'Required value');
  return asRecord(block) === undefined ? undefined : block;
}

function checkSpec(spec: unknown, out: IssueCollector): void {
  if (asRecord(spec) === undefined) return;
  checkEnum(out, 'spec.scope', field(spec, 'scope'), KUBEFED_SCOPES);

  const cd = requireBlock(out, spec, 'controllerDuration');
  if (cd !== undefined) {
    checkDuration(out, 'spec.controllerDuration.availableDelay', field(cd, 'availableDelay'));
    checkDuration(out, 'spec.controllerDuration.unavailableDelay', field(cd, 'unavailableDelay'));
    checkDuration(out, 'spec.controllerDuration.cacheSyncTimeout', field(cd, 'cacheSyncTimeout'));
  }

  const le = requireBlock(out, spec, 'leaderElect');
  if (le !== undefined) {
    const lease = checkDuration(out, 'spec.leaderElect.leaseDuration', field(le, 'leaseDuration'));
    const renew = checkDuration(out, 'spec.leaderElect.renewDeadline', field(le, 'renewDeadline'));
    const retry = checkDuration(out, 'spec.leaderElect.retryPeriod', field(le, 'retryPeriod'));
    if (lease !== undefined && renew !== undefined && lease <= renew)
      out.add(
        'spec.leaderElect.leaseDuration',
        `Invalid value: ${JSON.stringify(field(le, 'leaseDuration'))}: leaseDuration must be greater than renewDeadline`,
      );
    if (renew !== undefined && retry !== undefined && renew <= retry * 1.2)
      out.add(
        'spec.leaderElect.renewDeadline',
        `Invalid value: ${JSON.stringify(field(le, 'renewDeadline'))}: renewDeadline must be greater than retryPeriod*JitterFactor(1.2)`,
      );
    checkEnum(out, 'spec.leaderElect.resourceLock', field(le, 'resourceLock'), RESOURCE_LOCKS);
  }

  const gates = field(spec, 'featureGates');
  if (gates === undefined) out.add('spec.featureGates', 'Required value');
  const seen = new Set<string>();
  asArray(gates).forEach((g, i) => {
    const name = field(g, 'name');
    checkEnum(out, `spec.featureGates[${i}].name`, name, FEATURE_GATE_NAMES);
    if (typeof name === 'string' && name !== '') {
      if (seen.has(name)) out.add(`spec.featureGates[${i}].name`, `Duplicate value: ${JSON.stringify(name)}`);
      seen.add(name);
    }
    checkEnum(out, `spec.featureGates[${i}].configuration`, field(g, 'configuration'), SWITCHES);
  });

  const hc = requireBlock(out, spec, 'clusterHealthCheck');
  if (hc !== undefined) {
    checkDuration(out, 'spec.clusterHealthCheck.period', field(hc, 'period'));
    checkPositive(out, 'spec.clusterHealthCheck.failureThreshold', field(hc, 'failureThreshold'));
    checkPositive(out, 'spec.clusterHealthCheck.successThreshold', field(hc, 'successThreshold'));
    checkDuration(out, 'spec.clusterHealthCheck.timeout', field(hc, 'timeout'));
  }

  const sc = requireBlock(out, spec, 'syncController');
  if (sc !== undefined) {
    checkPositive(out, 'spec.syncController.maxConcurrentReconciles', field(sc, 'maxConcurrentReconciles'));
    checkEnum(out, 'spec.syncController.adoptResources', field(sc, 'adoptResources'), SWITCHES);
  }

  const st = requireBlock(out, spec, 'statusController');
  if (st !== undefined) checkPositive(out, 'spec.statusController.maxConcurrentReconciles', field(st, 'maxConcurrentReconciles'));
}

/** Options of {@link validateKubeFedConfig}. */
export interface ValidateKubeFedConfigOptions {
  /** The stored object on UPDATE; when given, `spec.scope` must not change. Default: none (CREATE). */
  readonly oldObject?: unknown;
}

/**
 * Validates a KubeFedConfig with the validating webhook's rules (§6.2). No defaulting happens
 * first: run {@link defaultKubeFedConfig} before validating a user's object, as the mutating
 * webhook does. Reports every problem found.
 */
export function validateKubeFedConfig(obj: unknown, options: ValidateKubeFedConfigOptions = {}): ValidationResult<KubeFedConfig> {
  return validateWith(kubeFedConfigSchema, obj, (raw, out) => {
    const spec = field(raw, 'spec');
    checkSpec(spec, out);
    if (options.oldObject !== undefined) {
      const oldScope = field(field(options.oldObject, 'spec'), 'scope');
      const scope = field(spec, 'scope');
      if (oldScope !== scope) out.add('spec.scope', `Invalid value: ${JSON.stringify(scope ?? '')}: field is immutable`);
    }
  });
}

/** Parses and validates a KubeFedConfig; throws a `ValidationError` listing every problem. */
export function parseKubeFedConfig(obj: unknown, options: ValidateKubeFedConfigOptions = {}): KubeFedConfig {
  return unwrap(validateKubeFedConfig(obj, options), describeObject('KubeFedConfig', obj));
}

/**
 * Parses a KubeFedConfig YAML (or JSON) document, e.g. the file of the controller manager's
 * `--kubefed-config`, into a plain object for {@link validateKubeFedConfig}.
 *
 * @throws Error (from the YAML parser) with the line and column of a syntax error.
 */
export function parseKubeFedConfigYaml(text: string): unknown {
  return parseYaml(text) as unknown;
}
