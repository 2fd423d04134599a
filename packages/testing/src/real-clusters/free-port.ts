import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: the kernel picks it for a listener that is
 * closed again at once. Another process may take it before the caller binds it; the components
 * that get these ports then fail to start, which names the port in their log.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
