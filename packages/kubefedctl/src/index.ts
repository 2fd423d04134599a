/**
 * @kubefed/kubefedctl: the kubefedctl command-line tool (docs/kubefed-compatibility.md §3): `join`, `unjoin`,
 * `rotate-token`, `enable`, `disable`, `federate`, `dashboard`, `migrate`, `orphaning-deletion`, `plan`,
 * `status`, `version` and `completion`, with KubeFed's flags and objects.
 *
 * Start reading at `cli.ts` (`run(argv, io)`: the root command, one `add<Name>Command(program, ctx)`
 * per command, error printing, exit codes). Each command's flags, help and wiring live in
 * `commands/<name>-command.ts`, over the `CommandContext` of `command-context.ts` (global flags,
 * printer, kubeconfig, host connection); the procedures they run are in `commands/<name>.ts`:
 * `commands/join.ts` (the join procedure with rollback) and `join-objects.ts` (the exact
 * objects join creates). `commands/enable.ts` with `enable-objects.ts` and `template-schema.ts`
 * generate and apply federated types; `commands/federate.ts` with `federate-objects.ts` turns
 * resources into federated objects; `commands/plan.ts` explains replica scheduling.
 * `least-privilege.ts` computes member RBAC from enabled FederatedTypeConfigs and
 * `sync-least-privilege.ts` keeps it in step; `main.ts` is the process entry (bin `kubefedctl`).
 */
export { run, buildProgram, parseBool, parseTimeout } from './cli.js';
export type { RunIo } from './cli.js';
export { join, validateJoinNames } from './commands/join.js';
export type { JoinAction, JoinOptions, JoinResult, JoinTargets, PlannedObject } from './commands/join.js';
export { unjoin } from './commands/unjoin.js';
export type { UnjoinOptions, UnjoinResult, UnjoinTargets } from './commands/unjoin.js';
export { formatVersion } from './commands/version.js';
export { DEFAULT_TYPE_NAMES, applyEnable, enableType, objectsForTarget } from './commands/enable.js';
export type { EnableOptions, EnableResult } from './commands/enable.js';
export { disableType } from './commands/disable.js';
export { federateDocuments, federateResource } from './commands/federate.js';
export type { FederateOptions, FederateOutcome, FederatedResult } from './commands/federate.js';
export { federatedYaml } from './commands/federate-command.js';
export {
  FEDERATE_PLACEMENT,
  compareKubeVersions,
  contentsTypes,
  defaultFederatedType,
  federatableName,
  federatedObjectFor,
  federatedTemplate,
  parseFederateInput,
  qualifiedName,
  skippedForContents,
} from './federate-objects.js';
export type { FederatedConversion, FederatedTypeInfo } from './federate-objects.js';
export { NEVER_FEDERATED_TYPES, contentsSkipOf, formatContentsSkips } from './contents-skip.js';
export type { ContentsSkipReason, SkippedObject, SkippedType } from './contents-skip.js';
export type { DisableOptions } from './commands/disable.js';
export { orphaningDeletion } from './commands/orphaning.js';
export type { OrphaningAction } from './commands/orphaning.js';
export {
  explainRsp,
  formatPlanJson,
  formatPlanTable,
  parseClusterList,
  parseClusterNumbers,
  parseRspYaml,
  planInputFor,
} from './commands/plan.js';
export type { PlanClusters } from './commands/plan.js';
export { gatherLivePlan } from './commands/plan-live.js';
export type { LivePlan } from './commands/plan-live.js';
export { STATUS_COLLECTION_TYPES, enableObjects, isEquivalentApi, typeDisplayName } from './enable-objects.js';
export type { EnableObjectsOptions, EnableTarget } from './enable-objects.js';
export { syncLeastPrivilegeRoles } from './sync-least-privilege.js';
export type { SyncLeastPrivilegeOptions } from './sync-least-privilege.js';
export { templateSchemaFromOpenApi } from './template-schema.js';
export type { OpenApiV3Document, TemplateSchema } from './template-schema.js';
export { TypeNotFoundError, lookupType } from './type-lookup.js';
export type { BuildInfo } from './commands/version.js';
export {
  AlreadyJoinedError,
  ContextError,
  DuplicateEndpointError,
  JoinStepError,
  KubefedctlError,
  NotJoinedError,
  UnjoinError,
  UsageError,
  causeMessage,
} from './errors.js';
export {
  JOINED_CLUSTER_ANNOTATION,
  JOIN_SERVICE_ACCOUNT_ANNOTATION,
  NAMESPACE_CREATED_BY_JOIN_ANNOTATION,
  boundClusterOf,
  hostSecretObject,
  joinNames,
  joinServiceAccountOf,
  joinedClusterOf,
  memberRoleName,
  kubeFedClusterObject,
  kubeFedClusterSpec,
  memberRbacObjects,
  namespaceObject,
  normalizeEndpoint,
  otherJoinsOfMember,
  serviceAccountObject,
  tokenSecretObject,
} from './join-objects.js';
export type {
  JoinNames,
  KubeFedClusterInputs,
  KubeFedScope,
  MemberRbacOptions,
  OtherJoin,
  OtherJoinsInputs,
  TokenData,
} from './join-objects.js';
export { clientForContext, contextDetails, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
export type { ContextDetails, KubeconfigSource } from './kubeconfig-contexts.js';
export {
  FULL_ACCESS_CLUSTER_RULES,
  FULL_ACCESS_NAMESPACE_RULES,
  HEALTH_CHECK_RULES,
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  TARGET_TYPE_VERBS,
  leastPrivilegeNamespaceRules,
  leastPrivilegeRules,
  rbacDelegationRules,
  replicaSchedulingRules,
  targetTypeRules,
} from './least-privilege.js';
export type { PolicyRule } from './least-privilege.js';
export { Output, formatError, hintFor, renderYamlDocuments } from './output.js';
export type { CliIo, YamlDocument } from './output.js';
