import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseAddress } from '@kubefed/runtime';

/**
 * The health endpoints of `--health-addr` while the process waits for the host API server at
 * start-up, before the manager serves them: `/healthz` and `/livez` answer 200 (the process is
 * alive and waiting is what it should do: a liveness failure would only restart the wait) and
 * `/readyz` 503. Closed before the manager listens on the same address.
 */
export class StartupHealthServer {
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on `address` (`host:port`, as `--health-addr`). */
  static async listen(address: string): Promise<StartupHealthServer> {
    const { host, port } = parseAddress('--health-addr', address);
    const server = createServer(respond);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return new StartupHealthServer(server);
  }

  /** Stops listening and drops open connections, so that the manager can bind the address. */
  async close(): Promise<void> {
    const server = this.#server;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

function respond(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz' || path === '/livez') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`[+]ping ok\n${path.slice(1)} check passed\n`);
    return;
  }
  if (path === '/readyz') {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('[-]host-api-server waiting\nreadyz check failed\n');
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
}
