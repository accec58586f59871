import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import type { LookupFn } from '../../src/sources/fetch/index.ts';

/**
 * `host:port` allow entries of every test server started below (allow entries cover one port,
 * src/sources/fetch/guard.ts): tests pass this array as `allow` to reach their own servers.
 */
export const testServerAllow: string[] = [];

/** A node:http server on 127.0.0.1:0 that counts TCP connections and requests. */
export interface TestServer {
  port: number;
  origin: string;
  /** TCP connections accepted (a refused fetch must leave this at 0). */
  connections: number;
  requests: http.IncomingMessage[];
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  const sockets = new Set<net.Socket>();
  const state = {
    port: 0,
    origin: '',
    connections: 0,
    requests: [] as http.IncomingMessage[],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('request', (req) => state.requests.push(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  testServerAllow.push(`127.0.0.1:${state.port}`);
  return state;
}

/** A raw TCP server for responses node:http refuses to produce (lying Content-Length, …). */
export async function startRawServer(onSocket: (s: net.Socket) => void): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const state = { port: 0, connections: 0, close: async () => {} };
  const server = net.createServer((s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    onSocket(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  testServerAllow.push(`127.0.0.1:${state.port}`);
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/** A resolver answering from a table; unknown names fail like NXDOMAIN. */
export function fakeLookup(table: Record<string, string[]>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((hostname, _options, cb) => {
    calls.push(hostname);
    const answers = table[hostname.toLowerCase().replace(/\.$/, '')];
    setImmediate(() => {
      if (!answers) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        cb(err, []);
        return;
      }
      cb(null, answers.map((address) => ({ address, family: net.isIP(address) })));
    });
  }) as LookupFn & { calls: string[] };
  fn.calls = calls;
  return fn;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Test-only tripwire on `net.connect` (which undici's connector calls). It records every address
 * a socket is about to dial — the host itself for IP literals, the lookup's answers for names —
 * and makes any non-loopback dial fail instead of leaving this machine, so a broken guard turns
 * into a failed assertion, never a real connection.
 */
export function installTripwire(): { dialed: string[]; restore(): void } {
  const dialed: string[] = [];
  const real = net.connect;
  const spy = vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
    const options = { ...(args[0] as net.TcpNetConnectOpts) };
    const host = options.host ?? 'localhost';
    if (net.isIP(host)) {
      dialed.push(host);
      if (!LOOPBACK.has(host)) throw new Error(`tripwire: test tried to connect to ${host}`);
    } else {
      const inner = (options.lookup ?? dns.lookup) as net.LookupFunction;
      options.lookup = ((hostname: string, lookupOptions: object, cb: (...a: unknown[]) => void) => {
        inner(hostname, lookupOptions as never, ((err: Error | null, address: unknown, family?: number) => {
          if (err) return cb(err);
          const list = Array.isArray(address) ? (address as { address: string }[]).map((a) => a.address) : [address as string];
          dialed.push(...list);
          const outside = list.find((a) => !LOOPBACK.has(a));
          if (outside) return cb(new Error(`tripwire: test tried to connect to ${outside}`));
          cb(null, address, family);
        }) as never);
      }) as net.LookupFunction;
    }
    return (real as (...a: unknown[]) => net.Socket).call(net, options, ...args.slice(1));
  }) as typeof net.connect);
  return { dialed, restore: () => spy.mockRestore() };
}

/** Reject if `promise` takes longer than `ms`; keeps every test bounded. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Await a rejection and return it (for asserting on FetchError fields). */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}
