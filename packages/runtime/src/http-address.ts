import { AddressError } from './errors.js';

/**
 * Parses `host:port` (`:8080` = all interfaces, `127.0.0.1:0` = a free loopback port,
 * `[::1]:9090`). Throws {@link AddressError} naming the option on a malformed value.
 */
export function parseAddress(option: string, value: string): { host: string; port: number } {
  const i = value.lastIndexOf(':');
  if (i < 0) throw new AddressError(`${option}: "${value}" is not host:port`);
  let host = value.slice(0, i);
  const portText = value.slice(i + 1);
  const port = Number(portText);
  if (portText === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new AddressError(`${option}: port "${portText}" of "${value}" is not a number in 0..65535`);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '0.0.0.0' : host, port };
}
