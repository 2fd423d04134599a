import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import { ComponentProcess } from '../real-clusters/component-process.js';
import { freePort } from '../real-clusters/free-port.js';
import { KubeFedStartError } from './kubefed-start-error.js';

const run = promisify(execFile);

const VALIDATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } as const;
const MUTATING = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' } as const;

/** KubeFed's admission webhook server, running on the test machine, and the webhook configurations that send the host's requests to it. */
export interface KubeFedWebhook {
  readonly process: ComponentProcess;
  /** e.g. `https://127.0.0.1:41234`. */
  readonly url: string;
  /**
   * The ValidatingWebhookConfiguration and MutatingWebhookConfiguration of the chart's webhook.yaml,
   * with `clientConfig.url` instead of a Service.
   */
  readonly configurations: readonly KubeObject[];
}

/**
 * Starts KubeFed's `webhook --secure-port=<free port> --cert-dir=<dir>` with a self-signed serving
 * certificate for 127.0.0.1 (made with openssl), waits until it answers HTTPS, and returns the
 * webhook configurations of KubeFed's chart (charts/kubefed/charts/controllermanager/templates/webhook.yaml)
 * pointing at it; the caller registers them. Names and namespace selectors follow the chart: the
 * `-<namespace>` suffix and `namespaceSelector: {matchLabels: {name: <namespace>}}` for a
 * `Namespaced` control plane.
 *
 * controller-runtime v0.10's manager inside it also serves metrics on `:8080`, which KubeFed's
 * webhook does not let one change: two of them cannot run on one machine at once.
 */
export async function startKubeFedWebhook(ctx: {
  binary: string;
  kubeconfig: string;
  workDir: string;
  namespace: string;
  scope: string;
  logLevel: number;
  deadline: number;
}): Promise<KubeFedWebhook> {
  const certDir = ctx.workDir;
  const caPem = await selfSignedServingCert(certDir);
  const port = await freePort();
  const server = await ComponentProcess.start('kubefed-webhook', {
    binary: ctx.binary,
    args: [`--kubeconfig=${ctx.kubeconfig}`, `--secure-port=${port}`, `--cert-dir=${certDir}`, `--v=${ctx.logLevel}`],
    logFile: join(ctx.workDir, 'webhook.log'),
  });
  const url = `https://127.0.0.1:${port}`;
  for (;;) {
    if (!server.running) throw new KubeFedStartError(`kubefed-webhook exited; last lines of ${server.logFile}:\n${await server.tail()}`);
    if (await answersTls(port)) break;
    if (Date.now() >= ctx.deadline) {
      throw new KubeFedStartError(
        `timed out waiting for kubefed-webhook to serve ${url}; last lines of ${server.logFile}:\n${await server.tail()}`,
      );
    }
    await sleep(200);
  }
  return { process: server, url, configurations: webhookConfigurations({ url, caPem, namespace: ctx.namespace, scope: ctx.scope }) };
}

/** Creates `configurations` on the host (replacing ones of the same name). */
export async function registerWebhooks(host: DynamicClient, configurations: readonly KubeObject[]): Promise<void> {
  for (const c of configurations) {
    const client = host.resource(c.kind === 'MutatingWebhookConfiguration' ? MUTATING : VALIDATING);
    await client.delete(c.metadata?.name ?? '').catch(() => undefined);
    await client.create(c);
  }
}

/** Deletes `configurations` from the host; missing ones are fine. */
export async function unregisterWebhooks(host: DynamicClient, configurations: readonly KubeObject[]): Promise<void> {
  for (const c of configurations) {
    const client = host.resource(c.kind === 'MutatingWebhookConfiguration' ? MUTATING : VALIDATING);
    await client.delete(c.metadata?.name ?? '').catch(() => undefined);
  }
}

function webhookConfigurations(at: { url: string; caPem: string; namespace: string; scope: string }): KubeObject[] {
  const namespaced = at.scope === 'Namespaced';
  const suffix = namespaced ? `-${at.namespace}` : '';
  const webhook = (name: string, path: string, resources: readonly string[], operations: readonly string[]): Record<string, unknown> => ({
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: { url: `${at.url}${path}`, caBundle: Buffer.from(at.caPem).toString('base64') },
    rules: [{ operations, apiGroups: ['core.kubefed.io'], apiVersions: ['v1beta1'], resources }],
    failurePolicy: 'Fail',
    sideEffects: 'None',
    ...(namespaced ? { namespaceSelector: { matchLabels: { name: at.namespace } } } : {}),
  });
  const createUpdate = ['CREATE', 'UPDATE'];
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: `validations.core.kubefed.io${suffix}` },
      webhooks: [
        webhook(
          'federatedtypeconfigs.core.kubefed.io',
          '/validate-federatedtypeconfigs',
          ['federatedtypeconfigs', 'federatedtypeconfigs/status'],
          createUpdate,
        ),
        webhook('kubefedclusters.core.kubefed.io', '/validate-kubefedcluster', ['kubefedclusters', 'kubefedclusters/status'], createUpdate),
        webhook('kubefedconfigs.core.kubefed.io', '/validate-kubefedconfig', ['kubefedconfigs'], createUpdate),
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: `mutation.core.kubefed.io${suffix}` },
      webhooks: [webhook('kubefedconfigs.core.kubefed.io', '/default-kubefedconfig', ['kubefedconfigs'], ['CREATE'])],
    },
  ];
}

/**
 * Writes controller-runtime's `tls.crt` and `tls.key` (self-signed, 127.0.0.1) into `dir`; returns
 * the certificate's PEM, which is its own CA bundle.
 */
async function selfSignedServingCert(dir: string): Promise<string> {
  const certFile = join(dir, 'tls.crt');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      '/CN=kubefed-admission-webhook',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      join(dir, 'tls.key'),
      '-out',
      certFile,
    ]);
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new KubeFedStartError(
      `openssl could not create the webhook's certificate: ${typeof stderr === 'string' ? stderr : String(err)}`,
      {
        cause: err,
      },
    );
  }
  return readFile(certFile, 'utf8');
}

/** Whether something completes a TLS handshake on 127.0.0.1:`port`. */
function answersTls(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, timeout: 1_000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('timeout', () => socket.destroy());
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}
