export {
  defaultKubeFedConfigObject,
  resolveKubeFedConfig,
  type KubeFedConfigSettings,
  type ResolvedKubeFedConfig,
} from './kubefed-config-settings.js';
export { KubeFedConfigSource, type ApplyResult } from './kubefed-config-source.js';
export {
  KUBEFED_CONFIG_GVR,
  KubeFedConfigReconciler,
  registerKubeFedConfigController,
  type KubeFedConfigControllerHandle,
  type KubeFedConfigControllerOptions,
} from './register-kubefed-config-controller.js';
export {
  InvalidKubeFedConfigError,
  readKubeFedSettings,
  readKubeFedSettingsFile,
  type ReadKubeFedSettingsOptions,
} from './read-kubefed-settings.js';
