import { createHash, randomBytes } from 'node:crypto';
import { RESOURCES } from '@kubefed/api';
import { type DynamicClient, isAlreadyExists, isNotFound, type KubeObject } from '@kubefed/client';
import { ConfigError } from './config.js';

/** The host Secret holding the key that signs sync outcomes (split mode), in the kubefed namespace. */
export const OUTCOME_SIGNING_SECRET = 'kubefed-sync-outcome-key';

/**
 * The default BullMQ prefix of one federation: `kubefed-<12 hex>`, a hash of the host cluster's
 * identity (the UID of its `kube-system` Namespace, the usual cluster ID) and the kubefed
 * namespace. Two federations sharing one Redis thus never share (or wipe) each other's queues,
 * while every process of one federation, controllers and workers, derives the same prefix.
 *
 * @throws the API error of reading `kube-system` (pass `--queue-prefix` when it may not be read).
 */
export async function defaultQueuePrefix(host: DynamicClient, namespace: string, signal?: AbortSignal): Promise<string> {
  const kubeSystem = await host.resource(RESOURCES.namespaces).get('kube-system', signal === undefined ? {} : { signal });
  const digest = createHash('sha256')
    .update(`${kubeSystem.metadata.uid ?? ''}/${namespace}`)
    .digest('hex');
  return `kubefed-${digest.slice(0, 12)}`;
}

/**
 * The key the workers sign their sync outcomes with and the leader checks them with, read
 * from the Secret {@link OUTCOME_SIGNING_SECRET} and created (32 random bytes) by whichever
 * process comes first. Anyone who can write to Redis but cannot read that Secret cannot make an
 * object look propagated.
 */
export async function outcomeSigningKey(host: DynamicClient, namespace: string): Promise<Buffer> {
  const secrets = host.resource(RESOURCES.secrets, namespace);
  for (;;) {
    try {
      return keyOf(await secrets.get(OUTCOME_SIGNING_SECRET));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      return keyOf(
        await secrets.create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: OUTCOME_SIGNING_SECRET, labels: { 'app.kubernetes.io/part-of': 'kubefed' } },
          type: 'Opaque',
          data: { key: randomBytes(32).toString('base64') },
        }),
      );
    } catch (err) {
      // Another process created it meanwhile: read theirs.
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

function keyOf(secret: KubeObject): Buffer {
  const encoded = (secret['data'] as Record<string, string> | undefined)?.['key'] ?? '';
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 32) throw new ConfigError(`Secret ${OUTCOME_SIGNING_SECRET} has no key of at least 32 bytes in data.key`);
  return key;
}
