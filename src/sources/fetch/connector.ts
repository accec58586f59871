import dns from 'node:dns';
import net from 'node:net';
import { buildConnector } from 'undici';
import { AddressBlocked } from './errors.ts';
import { blockedReason, effectivePort, isHostAllowed, stripBrackets, type AddressPolicy } from './guard.ts';

/**
 * The undici connector that enforces the address policy where it cannot be bypassed: at the
 * moment a socket is opened, for the first request and every redirect alike.
 *
 * - IP-literal hosts are checked here directly, because Node's `net.connect` never calls
 *   `lookup` for them (a guard living only in `lookup` lets `http://127.0.0.1/` through).
 * - Names are resolved by our `lookup`, which refuses the connection if ANY address is
 *   non-public and otherwise hands exactly the checked addresses to `net.connect`. The socket
 *   dials what was checked, so a DNS answer cannot change between check and use (rebinding).
 * - After connecting, the peer address is checked once more, as a backstop in case a future
 *   undici or Node version opens the socket some other way.
 */

export interface LookupAddress {
  address: string;
  family: number;
}

/** `dns.lookup(hostname, { all: true }, cb)`-shaped resolver; injectable for tests. */
export type LookupFn = (
  hostname: string,
  options: { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface GuardedConnectorOptions {
  policy: AddressPolicy;
  lookup?: LookupFn;
  connectTimeoutMs: number;
}

const systemLookup: LookupFn = (hostname, options, cb) => dns.lookup(hostname, options, cb);

export function guardedConnector(opts: GuardedConnectorOptions): buildConnector.connector {
  const resolve = opts.lookup ?? systemLookup;

  /**
   * The resolver for one connection. `exempt` is decided per connection from the URL's host as
   * written and its port (an allow entry is `host[:port]`): a name that merely resolves to an
   * allowed address is not exempt, and neither is another port of an allowed host.
   */
  const lookupFor = (exempt: boolean) =>
  // Shaped like the `lookup` option of net.connect, which asks for `all` when it races address
  // families (autoSelectFamily, the default) and for a single address otherwise.
  function lookup(
    hostname: string,
    options: { family?: number | string; all?: boolean },
    cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void {
    resolve(hostname, { all: true }, (err, addresses) => {
      if (err) return cb(err, []);
      const list = (addresses ?? []).map((a) => ({ address: a.address, family: a.family || net.isIP(a.address) }));
      if (list.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        e.code = 'ENOTFOUND';
        return cb(e, []);
      }
      if (!exempt) {
        for (const { address } of list) {
          const reason = blockedReason(address);
          if (reason !== undefined) return cb(new AddressBlocked(hostname, address, reason), []);
        }
      }
      const family = familyNumber(options.family);
      const usable = family === 0 ? list : list.filter((a) => a.family === family);
      if (usable.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname} (no IPv${family} address)`);
        e.code = 'ENOTFOUND';
        return cb(e, []);
      }
      if (options.all) return cb(null, usable);
      return cb(null, usable[0]!.address, usable[0]!.family);
    });
  }

  return function connect(options, callback) {
    const host = stripBrackets(options.hostname);
    const exempt = isHostAllowed(host, effectivePort(options.port, options.protocol), opts.policy);
    if (!exempt && net.isIP(host)) {
      const reason = blockedReason(host);
      if (reason !== undefined) return callback(new AddressBlocked(host, host, reason), null);
    }
    const base = buildConnector({
      timeout: opts.connectTimeoutMs,
      lookup: lookupFor(exempt) as unknown as net.LookupFunction,
      // HTTP/1.1 only: one request per feed gains nothing from h2, and h1 keeps the timeout and
      // body semantics the caps rely on simple.
      allowH2: false,
    });
    base(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('connect failed'), null);
      const peer = socket.remoteAddress;
      const reason = exempt ? undefined : peer === undefined ? 'unknown' : blockedReason(peer);
      if (reason !== undefined) {
        socket.destroy();
        return callback(new AddressBlocked(host, peer ?? 'unknown', reason), null);
      }
      callback(null, socket);
    });
  };
}

function familyNumber(family: number | string | undefined): number {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}
