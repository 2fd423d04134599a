import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** PEM material of one simulated cluster. */
export interface ClusterPki {
  caCertPem: string;
  certPem: string;
  keyPem: string;
}

function rsaKeys(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    privatePem: privateKey,
  };
}

function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

/**
 * Generates a CA for the cluster and a server certificate signed by it, valid for
 * IP 127.0.0.1 and DNS localhost (RSA keys from node:crypto, certificates built with node-forge).
 */
export function generateClusterPki(clusterName: string): ClusterPki {
  const ca = rsaKeys();
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = ca.publicKey;
  caCert.serialNumber = serial();
  caCert.validity.notBefore = new Date(Date.now() - 60_000);
  caCert.validity.notAfter = new Date(Date.now() + 10 * 365 * 24 * 3600_000);
  const caSubject = [{ name: 'commonName', value: `kube-sim-ca-${clusterName}` }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const srv = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = srv.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
        { type: 2, value: 'kubernetes.default.svc' },
      ],
    },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());
  return { caCertPem: forge.pki.certificateToPem(caCert), certPem: forge.pki.certificateToPem(cert), keyPem: srv.privatePem };
}
