import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * The status code of `GET url` (undefined when it cannot connect or takes over a second), for
 * the health endpoints of etcd, kube-controller-manager and kube-scheduler. HTTPS certificates
 * are not verified: those components serve self-signed ones on loopback.
 */
export function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { method: 'GET', rejectUnauthorized: false, timeout: 1_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode));
      res.once('error', () => resolve(undefined));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}
