/**
 * @kubefed/controller-manager: the `kubefed-controller-manager` process (bin → bin/kubefed-controller-manager.js).
 *
 * Start reading at `main.ts` (signals, exit codes), then `config.ts` (flags + environment,
 * validated with zod; every bad value is reported naming its flag) and `manager-process.ts`
 * (the runtime Manager with Lease leader election, the KubeFedConfig handling and the cluster
 * health controller, the FederatedTypeConfig/sync controllers with their Redis job producer, and
 * the sync worker host kept in step with the KubeFedClusters; a workers-only process feeds its
 * member Fleet from the KubeFedClusters' status). `startup-retry.ts` makes the first host
 * requests wait for the host API server (transient failures retried, permanent ones explained).
 * The exports below let tests and the local demo run it in process.
 */
export {
  buildProgram,
  parseConfig,
  redactUrl,
  ConfigError,
  HelpShown,
  MODES,
  LOG_LEVELS,
  LOG_FORMATS,
  type ConfigEnv,
  type ControllerManagerConfig,
  type HostSource,
  type Mode,
} from './config.js';
export {
  runControllerManager,
  leaderIdentity,
  hostClient,
  RedisUnreachableError,
  MemberNotReadyError,
  type RunControllerManagerOptions,
} from './manager-process.js';
export { HostStartupError } from './startup-retry.js';
