/**
 * Which federated types an FTC may name. KubeFed's validation (`pkg/apis/core/v1beta1/validation`)
 * asks only for a group with a dot, so an FTC could name a type that is not a federated type at
 * all: the target type itself, a Kubernetes API or the control plane's own API. Its sync
 * controller would then add its finalizer to, and write the status of, every object of that
 * type in the host. Such an FTC is refused here and starts nothing.
 */
import type { ApiResource } from '@kubefed/api';

/** API groups of the control plane itself (KubeFed's). */
const KUBEFED_GROUPS: readonly string[] = ['core.kubefed.io', 'scheduling.kubefed.io', 'multiclusterdns.kubefed.io'];

/** Kubernetes reserves `k8s.io`, `kubernetes.io` and their subdomains for its own APIs. */
const isKubernetesGroup = (group: string): boolean => ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));

/**
 * Why `federatedType` cannot be the federated type of `targetType` (a message naming the field),
 * or undefined when it can. Pure.
 */
export function federatedTypeProblem(spec: { readonly targetType: ApiResource; readonly federatedType: ApiResource }): string | undefined {
  const { targetType: target, federatedType: federated } = spec;
  const group = federated.group ?? '';
  const shown = `${federated.pluralName}.${group}`;
  if ((target.group ?? '') === group && target.pluralName === federated.pluralName) {
    return `spec.federatedType: ${shown} is the target type itself; a federated type holds a template, a placement and overrides (e.g. ${federatedNameOf(target)})`;
  }
  if (KUBEFED_GROUPS.includes(group))
    return `spec.federatedType.group: "${group}" is an API group of the control plane itself, not of federated types`;
  if (isKubernetesGroup(group))
    return `spec.federatedType.group: "${group}" is reserved for Kubernetes APIs (k8s.io, kubernetes.io and their subdomains), not a federated type's group`;
  return undefined;
}

/** The name `kubefedctl enable` gives the federated type of `target`, for messages. */
function federatedNameOf(target: ApiResource): string {
  return `federated${target.pluralName}.types.kubefed.io`;
}
