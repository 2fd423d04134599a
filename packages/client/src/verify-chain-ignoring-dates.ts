import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';

/** How many certificates a chain may hold before the walk gives up (leaf + intermediates). */
const MAX_CHAIN_DEPTH = 10;

/** The PEM certificates of a bundle, one string each. */
function splitPem(bundle: Buffer | string): string[] {
  return String(bundle).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** The peer's presented chain, leaf first, each certificate once. */
function presentedChain(peer: tls.DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: tls.DetailedPeerCertificate | undefined = peer;
  while (current?.raw !== undefined && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}

/** True when `issuer` is a CA certificate that issued and signed `cert`. */
function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return issuer.ca && cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/**
 * Verifies that the peer's certificate chains up to one of the trust anchors (`ca`, or Node's
 * bundled roots when undefined) by issuer names, CA flags and signatures, IGNORING ONLY the
 * validity dates. KubeFed's `disabledTLSValidations: [ValidityPeriod]` needs this: OpenSSL
 * reports a single (the last) verification error, so "expired" can hide "untrusted issuer", and
 * forgiving `CERT_HAS_EXPIRED` alone would trust any expired self-signed certificate.
 *
 * @returns undefined when the chain is trusted, else the reason it is not.
 */
export function verifyChainIgnoringDates(peer: tls.DetailedPeerCertificate, ca: Buffer | string | undefined): string | undefined {
  const anchors = (ca === undefined ? [...tls.rootCertificates] : splitPem(ca)).map((pem) => new X509Certificate(pem));
  if (anchors.length === 0) return 'no trusted certificate authority is configured';
  const [leaf, ...intermediates] = presentedChain(peer);
  if (leaf === undefined) return 'the server presented no certificate';
  let current = leaf;
  for (let depth = 0; depth < MAX_CHAIN_DEPTH; depth++) {
    if (anchors.some((anchor) => anchor.raw.equals(current.raw) || signedBy(current, anchor))) return undefined;
    const next = intermediates.find((candidate) => !candidate.raw.equals(current.raw) && signedBy(current, candidate));
    if (next === undefined) break;
    current = next;
  }
  return `the certificate of "${leaf.subject.replace(/\n/g, ', ')}" is not signed by a trusted certificate authority`;
}
