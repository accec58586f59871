import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient } from '../../src/api/index.ts';

/** A site that answers every request with `{}` after `delayMs`, counting connections and requests in flight. */
function countingSite(delayMs: number) {
  const s = { connections: 0, inFlight: 0, peak: 0, answered: 0 };
  const server = http.createServer((_req, res) => {
    s.inFlight++;
    s.peak = Math.max(s.peak, s.inFlight);
    setTimeout(() => {
      s.inFlight--;
      s.answered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    }, delayMs);
  });
  server.on('connection', () => s.connections++);
  return { server, stats: s };
}

describe('clients sharing the process pool (SiteConnection.sharePool, what worker jobs use)', () => {
  const site = countingSite(20);
  let restRoot = '';
  beforeAll(async () => {
    await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
    restRoot = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}/wp-json`;
  });
  afterAll(async () => {
    site.server.closeAllConnections();
    await new Promise((r) => site.server.close(r));
  });

  it('regression: every sync page job opened and closed connections of its own (a pool per client): clients built one after another reuse the same connections', async () => {
    site.stats.connections = 0;
    for (let job = 0; job < 10; job++) {
      const client = new CalendarClient({ restRoot, connections: 4, sharePool: true });
      await Promise.all(Array.from({ length: 4 }, () => client.root()));
      await client.close();
    }
    // A few more than one client's 4: a socket undici is still checking after its last answer
    // (idle validation) counts as busy, so the next client may open one beside it, once.
    expect(site.stats.connections).toBeLessThanOrEqual(8);
    // The same without sharing: each client opens its own.
    site.stats.connections = 0;
    for (let job = 0; job < 3; job++) {
      const client = new CalendarClient({ restRoot, connections: 4 });
      await Promise.all(Array.from({ length: 4 }, () => client.root()));
      await client.close();
    }
    expect(site.stats.connections).toBe(12);
  });

  it('each client keeps to its own `connections` in flight, and close() waits for its requests', async () => {
    site.stats.peak = 0;
    const a = new CalendarClient({ restRoot, connections: 2, sharePool: true });
    const b = new CalendarClient({ restRoot, connections: 3, sharePool: true });
    const onlyA = Promise.all(Array.from({ length: 8 }, () => a.root()));
    await onlyA;
    expect(site.stats.peak).toBe(2);
    site.stats.peak = 0;
    site.stats.answered = 0;
    const both = [...Array.from({ length: 8 }, () => a.root()), ...Array.from({ length: 8 }, () => b.root())];
    // Every call handed to the transport (the site answers each after 20 ms), then closed.
    await new Promise((r) => setTimeout(r, 5));
    expect(site.stats.answered).toBe(0);
    await a.close();
    await b.close();
    // Both closed only once the site had answered every request they sent; together never above 2 + 3.
    expect(site.stats.answered).toBe(16);
    expect(site.stats.peak).toBeLessThanOrEqual(5);
    await Promise.all(both);
  });
});
