/**
 * @kubefed/api: the KubeFed API contract, without IO. zod schemas and inferred types for every
 * KubeFed kind (field for field with KubeFed v0.10.0), the Kubernetes metadata we read,
 * defaults as pure functions, validation reporting every problem with its field path, label
 * selectors, KubeFed's fixed strings, and the CRDs in `deploy/crds/`.
 *
 * Start reading at `federated-object.ts` (the shape users write most), `kubefed-cluster.ts` and
 * `constants.ts`; CRD generation lives in `crds/`. Every kind has `xSchema` (shape only, as the
 * API server would accept it), `validateX(obj)` (shape + KubeFed's admission rules, returns a
 * result) and `parseX(obj)` (throws `ValidationError`).
 */
export * from './errors.js';
export * from './bounded-text.js';
export * from './align-columns.js';
export * from './constants.js';
export * from './meta.js';
export {
  formatPath,
  parseGoDuration,
  formatGoDuration,
  isDns1123Label,
  isDns1123Subdomain,
  isDns1035Label,
  labelKeyProblems,
  labelValueProblems,
  validateWith,
  parseWith,
  IssueCollector,
  type ValidationResult,
} from './validation.js';
export * from './label-selector.js';
export * from './kubefed-cluster.js';
export * from './kubefed-config.js';
export * from './federated-type-config.js';
export * from './federated-object.js';
export * from './replica-scheduling-preference.js';
export * from './propagated-version.js';
export * from './federated-service-status.js';
export * from './default-types.js';
export * from './build-info.js';
export * from './klog-flags.js';
export * from './crds/openapi.js';
export * from './crds/crd.js';
export * from './crds/kubefed-crds.js';
export * from './crds/federated-type.js';
export * from './crds/generate.js';
export * from './resources.js';
