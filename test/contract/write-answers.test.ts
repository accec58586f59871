import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient, ResponseFormatError } from '../../src/api/index.ts';

/**
 * CalendarClient.eventWrites parses write answers for what the write path reads (EventAck), not
 * the whole record: a 2xx answer that is not an event must still be refused with a clear error,
 * before calsync records anything in its ledger.
 */
describe('a write answered with something that is not an event', () => {
  let server: http.Server;
  let root: string;
  beforeAll(async () => {
    // A WordPress post where an event was expected (a plugin or proxy answering for the route).
    server = http.createServer((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 5, status: 'publish', slug: 'ev-1', title: { rendered: 'Hello' }, type: 'post' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const body = { title: 'Ev', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', timezone: 'UTC', slug: 'ev-1' };

  it.each(['eventWrites', 'events'] as const)('client.%s.create throws ResponseFormatError naming the missing fields', async (resource) => {
    const client = new CalendarClient({ restRoot: root, retry: { maxRetries: 0 } });
    try {
      const err = await client[resource].create(body).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseFormatError);
      expect((err as ResponseFormatError).code).toBe('response-format');
      expect((err as Error).message).toMatch(/POST \/events → 201: unexpected response: .*start_date/);
    } finally {
      await client.close();
    }
  });
});
