/**
 * @kubefed/kubefedctl: the kubefedctl command-line tool (KUBEFED-REFERENCE §3): `join`, `unjoin`
 * and `version`, with KubeFed's flags and objects.
 *
 * Start reading at `cli.ts` (`run(argv, io)`: the commander program, error printing, exit codes),
 * then `commands/join.ts` (the join procedure with rollback) and `join-objects.ts` (the exact
 * objects join creates). `least-privilege.ts` computes member RBAC from enabled
 * FederatedTypeConfigs; `main.ts` is the process entry (bin `kubefedctl`).
 */
export { run, buildProgram, parseBool, parseTimeout } from './cli.js';
export type { RunIo } from './cli.js';
export { join, validateJoinNames } from './commands/join.js';
export type { JoinAction, JoinOptions, JoinResult, JoinTargets, PlannedObject } from './commands/join.js';
export { unjoin } from './commands/unjoin.js';
export type { UnjoinOptions, UnjoinResult, UnjoinTargets } from './commands/unjoin.js';
export { formatVersion, readBuildInfo } from './commands/version.js';
export type { BuildInfo, BuildInfoSource } from './commands/version.js';
export { AlreadyJoinedError, ContextError, JoinStepError, KubefedctlError, UnjoinError, UsageError, causeMessage } from './errors.js';
export {
  hostSecretObject,
  joinNames,
  kubeFedClusterObject,
  kubeFedClusterSpec,
  memberRbacObjects,
  namespaceObject,
  serviceAccountObject,
  tokenSecretObject,
} from './join-objects.js';
export type { JoinNames, KubeFedClusterInputs, KubeFedScope, MemberRbacOptions, TokenData } from './join-objects.js';
export { clientForContext, contextDetails, loadKubeconfig, resolveContextName } from './kubeconfig-contexts.js';
export type { ContextDetails, KubeconfigSource } from './kubeconfig-contexts.js';
export {
  FULL_ACCESS_CLUSTER_RULES,
  FULL_ACCESS_NAMESPACE_RULES,
  HEALTH_CHECK_RULES,
  LEAST_PRIVILEGE_LABEL,
  LEAST_PRIVILEGE_LABEL_VALUE,
  TARGET_TYPE_VERBS,
  leastPrivilegeRules,
  targetTypeRules,
} from './least-privilege.js';
export type { PolicyRule } from './least-privilege.js';
export { Output, formatError, hintFor, renderYamlDocuments } from './output.js';
export type { CliIo, YamlDocument } from './output.js';
