/**
 * Whether the objects stored under an installed CRD stay valid, and read the same, once our CRD
 * replaces it: the API server that will enforce our schema decides, by a server-side dry-run
 * create of each object into a temporary copy of our CRD (same kind and version, a scratch group).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESOURCES, type CustomResourceDefinition } from '@kubefed/api';
import { isNotFound, jsonEqual, type DynamicClient, type KubeObject } from '@kubefed/client';
import { causeMessage } from '../errors.js';

/** Label on the temporary CRDs, so that one left behind by an interrupted run can be found. */
const MIGRATE_CHECK_LABEL = 'kubefed.io/migrate-check';
/** How long the temporary CRD may take to be served. */
const ESTABLISH_TIMEOUT_MS = 60_000;
const POLL_MS = 250;
/** Longest text of a rejection quoted in the outcome. */
const MAX_REASON_CHARS = 300;

/** The outcome for one CRD: undefined when every object passed, else the first that did not and why. */
export type StoredObjectsProblem = string | undefined;

/** An object as it is sent and compared: without apiVersion, metadata (name and namespace aside) and status. */
function content(obj: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

const where = (obj: KubeObject): string =>
  `${obj.metadata?.namespace === undefined ? '' : `${obj.metadata.namespace}/`}${obj.metadata?.name ?? ''}`;

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * Creates a copy of `ours` in a scratch group, dry-run creates every object of `stored` (read
 * through version `version`) in it, and deletes the copy again (also on failure). Stops at the
 * first object the API server rejects or returns differently (defaults added, fields pruned).
 *
 * @throws ApiError when the temporary CRD cannot be created or is not served within 60 s.
 */
export async function storedObjectsProblem(
  host: DynamicClient,
  input: { ours: CustomResourceDefinition; version: string; stored: readonly KubeObject[] },
): Promise<StoredObjectsProblem> {
  const { ours, version, stored } = input;
  const group = `migrate-check-${randomBytes(4).toString('hex')}.kubefed.io`;
  const { shortNames: _s, categories: _c, ...names } = ours.spec.names;
  const scratch: KubeObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}`, labels: { [MIGRATE_CHECK_LABEL]: 'true' } },
    spec: { ...ours.spec, group, names },
  };
  const crds = host.resource(RESOURCES.customResourceDefinitions);
  await crds.create(scratch);
  try {
    const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
    while (!isEstablished(await crds.get(scratch.metadata?.name ?? ''))) {
      if (Date.now() > deadline) throw new Error(`the temporary CRD ${scratch.metadata?.name ?? ''} was not Established within 60 s`);
      await sleep(POLL_MS);
    }
    const gvr = { group, version, resource: names.plural };
    for (const obj of stored) {
      const namespace = ours.spec.scope === 'Namespaced' ? obj.metadata?.namespace : undefined;
      const body: KubeObject = {
        ...content(obj),
        apiVersion: `${group}/${version}`,
        kind: names.kind,
        metadata: { name: obj.metadata?.name ?? '', ...(namespace === undefined ? {} : { namespace }) },
      };
      let created: KubeObject | undefined;
      while (created === undefined) {
        try {
          created = await host.resource(gvr, namespace).create(body, { dryRun: true });
        } catch (err) {
          // Established comes a moment before the new resource is routed.
          if (isNotFound(err) && Date.now() < deadline) {
            await sleep(POLL_MS);
            continue;
          }
          return `${where(obj)} is not valid under ours: ${causeMessage(err).slice(0, MAX_REASON_CHARS)}`;
        }
      }
      if (!jsonEqual(content(created), content(body)))
        return `${where(obj)} would read differently under ours (defaults added or fields pruned)`;
    }
    return undefined;
  } finally {
    await crds.delete(scratch.metadata?.name ?? '').catch(() => undefined);
  }
}
