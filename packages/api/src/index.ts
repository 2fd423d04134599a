/**
 * @kubefed/api: the KubeFed API contract.
 */
export const KUBEFED_NAMESPACE_DEFAULT = 'kube-federation-system';
