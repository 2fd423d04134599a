import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RealClusterStartError } from './real-cluster-error.js';

const run = promisify(execFile);

/** A certificate and its key, as files and as PEM. */
interface CertPair {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** The files one cluster's control plane needs; all in the directory given to {@link createClusterPki}. */
export interface ClusterPki {
  /** The cluster CA: signs every certificate below and is kube-apiserver's `--client-ca-file`. */
  readonly ca: CertPair;
  /** kube-apiserver's serving certificate (127.0.0.1, localhost, the `kubernetes` Service names). */
  readonly apiserver: CertPair;
  /** Client certificates: `kubefed-admin` in `system:masters`, and the identities the default RBAC policy binds. */
  readonly admin: CertPair;
  readonly controllerManager: CertPair;
  readonly scheduler: CertPair;
  /** kube-apiserver's client certificate towards aggregated API servers (`front-proxy-client`, the only `--requestheader-allowed-names`). */
  readonly frontProxyClient: CertPair;
  /** The service-account token signing key (PKCS#8) and its public key (SPKI), both PEM files. */
  readonly serviceAccountKeyFile: string;
  readonly serviceAccountPublicKeyFile: string;
}

/** Options of {@link createClusterPki}. */
export interface ClusterPkiOptions {
  /** Where the files go. */
  readonly dir: string;
  /** Put in the CA's common name. */
  readonly clusterName: string;
  /** The first address of `--service-cluster-ip-range` (the `kubernetes` Service), added to the serving certificate. */
  readonly serviceIp: string;
}

// P-256 keys: generated in microseconds, accepted by every component.
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const DAYS = ['-days', '3650'];

/**
 * Creates a CA, a serving certificate, four client certificates and a service-account key pair
 * for one cluster, with the `openssl` command line (node:crypto makes keys but no certificates).
 *
 * @throws RealClusterStartError when openssl is missing or fails; the message has its stderr.
 */
export async function createClusterPki(options: ClusterPkiOptions): Promise<ClusterPki> {
  const { dir } = options;
  const ca = await openssl('ca', dir, [
    '-subj',
    `/CN=kubefed-real-${options.clusterName}-ca`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  const signed = (name: string, subject: string, extensions: readonly string[]): Promise<CertPair> =>
    openssl(name, dir, [
      '-subj',
      subject,
      '-CA',
      ca.certFile,
      '-CAkey',
      ca.keyFile,
      '-addext',
      'basicConstraints=critical,CA:FALSE',
      '-addext',
      'keyUsage=critical,digitalSignature',
      ...extensions.flatMap((e) => ['-addext', e]),
    ]);
  const clientAuth = ['extendedKeyUsage=clientAuth'];
  const sans = [
    'IP:127.0.0.1',
    `IP:${options.serviceIp}`,
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ];
  const [apiserver, admin, controllerManager, scheduler, frontProxyClient] = await Promise.all([
    signed('apiserver', '/CN=kube-apiserver', ['extendedKeyUsage=serverAuth', `subjectAltName=${sans.join(',')}`]),
    signed('admin', '/O=system:masters/CN=kubefed-admin', clientAuth),
    signed('controller-manager', '/CN=system:kube-controller-manager', clientAuth),
    signed('scheduler', '/CN=system:kube-scheduler', clientAuth),
    signed('front-proxy-client', '/CN=front-proxy-client', clientAuth),
  ]);
  const serviceAccount = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serviceAccountKeyFile = join(dir, 'service-account.key');
  const serviceAccountPublicKeyFile = join(dir, 'service-account.pub');
  await writeFile(serviceAccountKeyFile, serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(serviceAccountPublicKeyFile, serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }));
  return { ca, apiserver, admin, controllerManager, scheduler, frontProxyClient, serviceAccountKeyFile, serviceAccountPublicKeyFile };
}

/** `openssl req -x509` writing `<name>.crt` and `<name>.key`: self-signed, or signed by `-CA`. */
async function openssl(name: string, dir: string, args: readonly string[]): Promise<CertPair> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  try {
    await run('openssl', ['req', '-x509', ...EC_KEY, ...DAYS, '-keyout', keyFile, '-out', certFile, ...args]);
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new RealClusterStartError(
      `openssl could not create the ${name} certificate: ${typeof stderr === 'string' && stderr !== '' ? stderr : String(err)}`,
      { cause: err },
    );
  }
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  return { certFile, keyFile, certPem, keyPem };
}
