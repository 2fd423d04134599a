import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** Ports this process handed out: never twice, even once their component has exited. */
const handedOut = new Set<number>();
const LOWEST = 10_000;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a component to bind later. It is picked
 * at random below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`, from which every
 * outgoing connection takes its local port: a port the kernel handed to a closed listener could
 * be taken by the next client connection before the component binds it, and was). Where that
 * range leaves no room below it, the kernel picks one (port 0). Never the same port twice in one
 * process. Another process may still take it first; the component then fails to start, naming the
 * port in its log.
 */
export async function freePort(): Promise<number> {
  const ephemeralStart = await ephemeralRangeStart();
  if (ephemeralStart - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const port = LOWEST + Math.floor(Math.random() * (ephemeralStart - LOWEST));
      if (handedOut.has(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await kernelPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** The first port of the ephemeral range (Linux); 0 when unknown. */
async function ephemeralRangeStart(): Promise<number> {
  const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  const start = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(start) ? start : 0;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
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
