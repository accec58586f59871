import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CalendarClient, NotFoundError } from '../../src/api/index.ts';
import { EventAck } from '../../src/api/schemas/events.ts';
import { caught, eventBody, useTarget, WINDOW, type Target } from './harness.ts';

/**
 * WordPress's `_fields` (core's rest_filter_response_fields) on The Events Calendar's routes:
 * CalendarClient.eventWrites sends it on every create, so the site answers with the keys EventAck
 * reads instead of the whole event (src/api/resources/slugged.ts `answerFields`). How it filters is
 * why it is sent on creates only: a list's envelope is one object to it, and TEC 6.17.1's answer to a
 * by-slug update that misses (a WP_Error object with 200) makes it a PHP fatal. Runs against the
 * sandbox (src/sandbox/fields.ts) and, with CALSYNC_CONTRACT_URL, a real site.
 */
for (const version of ['6.17.2', '6.17.1'] as const) {
  describe(`_fields on the calendar routes (${version} sandbox, or the real site)`, () => {
    let t: Target;
    let c: CalendarClient;
    useTarget(
      (target) => {
        t = target;
        c = target.client();
      },
      { version },
    );
    const ackFields = Object.keys(EventAck.shape).join(',');
    const raw = <T>(method: 'GET' | 'POST', path: string, _fields: string, body?: unknown) => c.request<T>({ method, path, query: { _fields }, ...(body ? { body } : {}) });

    it('a create answers only the keys named, linked records kept whole (inline venue and organizer included)', async () => {
      const body = { ...eventBody(`${t.prefix} fields`, 3), slug: `${t.prefix}-fields`, venue: { venue: `${t.prefix} Hall`, city: 'Lyon' }, organizer: [{ organizer: `${t.prefix} Org` }] };
      const ack = await raw<Record<string, unknown>>('POST', '/events', ackFields, body);
      t.track('events', ack.id as number);
      const venue = ack.venue as Record<string, unknown>;
      const organizers = ack.organizer as Record<string, unknown>[];
      t.track('venues', venue.id as number);
      t.track('organizers', organizers[0]!.id as number);
      expect(Object.keys(ack).sort()).toEqual(Object.keys(EventAck.shape).sort());
      expect([ack.slug, venue.venue, organizers[0]!.organizer]).toEqual([`${t.prefix}-fields`, `${t.prefix} Hall`, `${t.prefix} Org`]);
      // The client's own write: the same event read back through eventWrites, by slug.
      const viaClient = await c.eventWrites.updateBySlug(`${t.prefix}-fields`, { ...eventBody(`${t.prefix} fields 2`, 3), venue: venue.id as number, organizer: [organizers[0]!.id as number] });
      expect([viaClient.id, viaClient.title, viaClient.venue]).toMatchObject([ack.id, `${t.prefix} fields 2`, { id: venue.id }]);
    });

    it('a dotted name keeps a key inside an object, not inside a list; an unknown name leaves []', async () => {
      const ev = await c.events.create({ ...eventBody(`${t.prefix} nested`, 4), venue: { venue: `${t.prefix} Nested Hall` }, organizer: [{ organizer: `${t.prefix} Nested Org` }] } as never);
      t.track('events', ev.id);
      t.track('venues', (ev.venue as { id: number }).id);
      t.track('organizers', (ev.organizer as { id: number }[])[0]!.id);
      expect(await raw('GET', `/events/${ev.id}`, 'id,venue.id,venue.slug,organizer.id')).toEqual({ id: ev.id, venue: { id: (ev.venue as { id: number }).id, slug: (ev.venue as { slug: string }).slug }, organizer: [] });
      expect(await raw('GET', `/events/${ev.id}`, 'no_such_key')).toEqual([]);
    });

    it("regression: a by-slug update that misses answers a PHP fatal (500) with _fields where it answers the 6.17.1 way (200 and a WP_Error), so the client could not tell the miss", async () => {
      const slug = `${t.prefix}-never-created`;
      const body = eventBody(`${t.prefix} miss`, 6);
      const plain = await caught(() => c.request({ method: 'POST', path: `/events/by-slug/${slug}`, body }));
      expect(plain).toBeInstanceOf(ApiError);
      const fielded = await caught(() => c.request({ method: 'POST', path: `/events/by-slug/${slug}`, query: { _fields: ackFields }, body }));
      expect(fielded).toBeInstanceOf(ApiError);
      // 6.17.2 answers its 404 (an error: not filtered); 6.17.1 a serialized WP_Error with 200.
      const expected = (plain as ApiError).status === 404 ? [404, (plain as ApiError).code] : [500, 'internal_server_error'];
      expect([(fielded as ApiError).status, (fielded as ApiError).code]).toEqual(expected);
      // What the client does about it: an update by slug that misses is NotFoundError on both.
      expect(await caught(() => c.eventWrites.updateBySlug(slug, body))).toBeInstanceOf(NotFoundError);
    });

    it("a list's envelope is filtered as one object: `_fields=id` on /events leaves []", async () => {
      expect(await c.request({ method: 'GET', path: '/events', query: { ...WINDOW, _fields: 'id' } })).toEqual([]);
    });

    it('an error answer is not filtered: the same status, code and message as without _fields', async () => {
      // The answer differs by version (404 rest-event-not-found on 6.17.2, 400 rest_invalid_param on 6.17.1).
      const plain = await caught(() => c.request({ method: 'GET', path: '/events/2000000000' }));
      const err = await caught(() => raw('GET', '/events/2000000000', 'id'));
      expect(err).toBeInstanceOf(ApiError);
      const { status, code, message } = err as ApiError;
      expect([status, code, message]).toEqual([(plain as ApiError).status, (plain as ApiError).code, (plain as ApiError).message]);
      expect(code).not.toBe('');
    });
  });
}

describe('which calls carry _fields', () => {
  const seen: string[] = [];
  let server: http.Server;
  let client: CalendarClient;
  const event = { id: 7, status: 'publish', title: 'Ev', slug: 'ev', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', venue: [], organizer: [] };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url?.includes('/events?') && req.method === 'GET' ? { events: [event], total: 1, total_pages: 1 } : event));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = new CalendarClient({ restRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json`, retry: { maxRetries: 0 } });
  });
  afterAll(async () => {
    await client.close();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const fieldsOf = (url: string | undefined) => new URL(url ?? '', 'http://x').searchParams.get('_fields');
  const body = { title: 'Ev', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00' };

  it("eventWrites' creates name EventAck's keys; its updates and reads, events' calls and every list name none", async () => {
    await client.eventWrites.create({ ...body, slug: 'ev' });
    expect(seen.splice(0).map(fieldsOf)).toEqual([Object.keys(EventAck.shape).join(',')]);
    await client.eventWrites.updateBySlug('ev', body);
    await client.eventWrites.update(7, body);
    await client.eventWrites.get(7);
    await client.events.create({ ...body, slug: 'ev' });
    await client.events.getBySlug('ev').catch(() => undefined);
    for await (const _ of client.eventWrites.iterate(WINDOW)) void _;
    expect(seen.splice(0).map(fieldsOf)).toEqual([null, null, null, null, null, null]);
  });
});
