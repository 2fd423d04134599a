/**
 * The labels of a member Namespace that a FederatedNamespace writes (beyond KubeFed, which
 * replaces them with the template's): the labels the member's Namespace already has stay, the
 * template's (and the overrides') are added over them, and `pod-security.kubernetes.io/*` labels
 * stay as the member has them unless the KubeFedConfig allows setting them. Pure.
 */
import { POD_SECURITY_LABEL_PREFIX } from '@kubefed/api';
import type { KubeObject } from '@kubefed/client';

/** Result of {@link namespaceLabels}. */
export interface NamespaceLabels {
  readonly labels: Record<string, string>;
  /** The Pod Security labels the desired object asked for that were not set (sorted). */
  readonly refused: readonly string[];
}

const labelsOf = (obj: KubeObject | undefined): Record<string, string> => {
  const labels: unknown = obj?.metadata.labels;
  return typeof labels === 'object' && labels !== null && !Array.isArray(labels) ? (labels as Record<string, string>) : {};
};

/**
 * The labels to write on a member Namespace: `existing`'s, then `desired`'s over them; with
 * `allowPodSecurity` false, every {@link POD_SECURITY_LABEL_PREFIX} label as `existing` has it
 * (absent when it has none), and the ones `desired` asked otherwise in `refused`.
 */
export function namespaceLabels(desired: KubeObject, existing: KubeObject | undefined, allowPodSecurity: boolean): NamespaceLabels {
  const had = labelsOf(existing);
  const asked = labelsOf(desired);
  const labels: Record<string, string> = { ...had, ...asked };
  const refused: string[] = [];
  if (!allowPodSecurity) {
    for (const key of Object.keys(asked)) {
      if (!key.startsWith(POD_SECURITY_LABEL_PREFIX) || had[key] === asked[key]) continue;
      refused.push(key);
      if (key in had) labels[key] = had[key] ?? '';
      else delete labels[key];
    }
  }
  return { labels, refused: refused.sort() };
}
