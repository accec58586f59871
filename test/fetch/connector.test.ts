import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedConnector } from '../../src/sources/fetch/connector.ts';
import { AddressBlocked } from '../../src/sources/fetch/errors.ts';
import { compilePolicy } from '../../src/sources/fetch/guard.ts';
import { fakeLookup, startServer, within, type TestServer } from './support.ts';

/**
 * The connector on its own, below fetchSource's own literal pre-check: it must hold the line even
 * when called directly (as undici does for every redirect hop and every new connection).
 */

type Outcome = { err: Error | null; socket: net.Socket | null };

function dial(connect: ReturnType<typeof guardedConnector>, hostname: string, port: number): Promise<Outcome> {
  return within(
    5000,
    new Promise<Outcome>((resolve) =>
      connect({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (err, socket) =>
        resolve({ err, socket: socket as net.Socket | null }),
      ),
    ),
  );
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => res.end('ok'));
});
afterAll(() => server.close());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('guardedConnector', () => {
  it('refuses IP literals itself, bracketed or not, without calling net.connect', async () => {
    // Throwing, not calling through: if the check ever regresses, nothing is dialed for real.
    const spy = vi.spyOn(net, 'connect').mockImplementation(() => {
      throw new Error('must not dial');
    });
    const connect = guardedConnector({ policy: compilePolicy(), connectTimeoutMs: 1000 });
    for (const host of ['127.0.0.1', '::1', '[::1]', '10.0.0.1', '::ffff:127.0.0.1']) {
      const { err, socket } = await dial(connect, host, server.port);
      expect(err).toBeInstanceOf(AddressBlocked);
      expect(socket).toBeNull();
    }
    expect(spy).not.toHaveBeenCalled();
    expect(server.connections).toBe(0);
  });

  it('connects to an allowed literal on its allowed port, and to nothing else on that address', async () => {
    const connect = guardedConnector({
      policy: compilePolicy([`127.0.0.1:${server.port}`]),
      lookup: fakeLookup({ 'feed.test': ['127.0.0.1'] }),
      connectTimeoutMs: 1000,
    });
    const ok = await dial(connect, '127.0.0.1', server.port);
    expect(ok.err).toBeNull();
    expect(ok.socket?.remoteAddress).toBe('127.0.0.1');
    ok.socket?.destroy();
    // A name resolving to the allowed address is not the allowed address.
    const named = await dial(connect, 'feed.test', server.port);
    expect(named.err).toBeInstanceOf(AddressBlocked);
    expect(named.socket).toBeNull();
  });

  it('checks the peer after connecting, in case the socket reached an address lookup never saw', async () => {
    // Simulate a future undici/Node that dials without our lookup: net.connect ignores it and
    // goes straight to 127.0.0.1, which this policy does not allow.
    const real = net.connect as (options: net.TcpNetConnectOpts) => net.Socket;
    vi.spyOn(net, 'connect').mockImplementation(((options: net.TcpNetConnectOpts) =>
      real.call(net, { ...options, host: '127.0.0.1', lookup: undefined })) as typeof net.connect);
    const connect = guardedConnector({
      policy: compilePolicy(),
      lookup: fakeLookup({ 'public.test': ['93.184.215.14'] }),
      connectTimeoutMs: 1000,
    });
    const { err, socket } = await dial(connect, 'public.test', server.port);
    expect(err).toBeInstanceOf(AddressBlocked);
    expect((err as AddressBlocked).address).toBe('127.0.0.1');
    expect(socket).toBeNull();
    // The TCP handshake happened, but no request was ever written.
    expect(server.requests.length).toBe(0);
  });
});
