import { describe, expect, it } from 'vitest';
import { EventAck, EventRecord, eventVenue } from '../../src/api/index.ts';
import { recordTimes } from '../../src/model/run-window.ts';

// The record's unions try the commonest wire shape first (a speed matter); every shape must
// still read as before, whichever option matches.
describe('event record: each wire shape of venue, image and custom_fields', () => {
  const base = { id: 1, status: 'publish', title: 't', slug: 's', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' };
  const venue = { id: 7, venue: 'Hall' };
  it.each([
    ['no venue', { venue: [] }, null],
    ['one venue object', { venue }, 7],
    ['multi-venue array', { venue: [venue, { id: 8 }] }, 7],
  ])('%s', (_what, extra, id) => {
    expect(eventVenue(EventRecord.parse({ ...base, ...extra }))?.id ?? null).toBe(id);
  });
  it('image false, null or an object; custom_fields [] or an object', () => {
    for (const image of [false, null, { url: 'https://x/i.png', id: 3 }]) expect(EventRecord.parse({ ...base, image }).image).toEqual(image);
    for (const custom_fields of [[], { a: { label: 'A', value: '1' } }]) expect(EventRecord.parse({ ...base, custom_fields }).custom_fields).toEqual(custom_fields);
    expect(() => EventRecord.parse({ ...base, venue: 'Hall' })).toThrow();
  });
  // DateDetails is checked by hand (half the cost of a listed event as six-union zod objects):
  // the same rule as before, strings or numbers where present, extra keys kept.
  it('date details: parts as strings or numbers, kept as sent; anything else refused', () => {
    const details = { year: '2031', month: 1, day: '01', hour: '10', minutes: '00', seconds: '00', extra: true };
    expect(EventRecord.parse({ ...base, start_date_details: details, utc_end_date_details: {} })).toMatchObject({ start_date_details: details, utc_end_date_details: {} });
    for (const bad of [{ year: null }, { month: { n: 1 } }, { seconds: false }, [], 'x', null]) {
      expect(EventRecord.safeParse({ ...base, end_date_details: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

// Imports and syncs parse write answers with EventAck (what the write path reads), not the full
// EventRecord: it must read those fields exactly as EventRecord does, and refuse what is not an event.
describe('event write answers (EventAck)', () => {
  const base = { id: 1, status: 'publish', title: 't', slug: 's', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00', modified_utc: '2030-01-01 00:00:00', utc_start_date: '2031-01-01 09:00:00', utc_end_date: '2031-01-01 10:00:00' };
  const venue = { id: 7, venue: 'Hall', slug: 'hall', modified_utc: '2030-01-01 00:00:00', address: '1 Main St' };
  const organizer = [{ id: 9, organizer: 'Org', slug: 'org', email: 'o@example.org' }];
  it.each([
    ['no venue, no organizer', {}],
    ['one venue object', { venue, organizer }],
    ['multi-venue array', { venue: [venue, { id: 8 }], organizer }],
    ['venue [] and the keys of a full record', { venue: [], image: false, start_date_details: { year: '2031' }, categories: [{ id: 3, name: 'c', slug: 'c' }] }],
  ])('%s: the same fields as EventRecord', (_what, extra) => {
    const full = EventRecord.parse({ ...base, ...extra });
    const ack = EventAck.parse({ ...base, ...extra });
    const pick = (r: EventAck) => ({ times: recordTimes(r), id: r.id, slug: r.slug, status: r.status, modified_utc: r.modified_utc, utc_start_date: r.utc_start_date, venue: eventVenue(r) && { id: eventVenue(r)!.id, slug: eventVenue(r)!.slug, venue: eventVenue(r)!.venue }, organizer: r.organizer.map((o) => ({ id: o.id, organizer: o.organizer, slug: o.slug })) });
    expect(pick(ack)).toEqual(pick(full));
  });
  // The merge of lean write answers with per-event window times dropped utc_end_date: the ledger
  // kept no end, and an ICS import retired by UTC start alone (a Tokyo all-day event on the
  // window's first day was never retired again). recordTimes above now reads both the same way.
  it('regression: write answers dropped the UTC end the ledger keeps for retirement', () => {
    expect(recordTimes(EventAck.parse(base)).end).toBe('2031-01-01T10:00:00Z');
  });
  it('refuses an answer that is not an event, as EventRecord does', () => {
    const post = { id: 5, status: 'publish', slug: 'hello', title: { rendered: 'Hello' }, type: 'post' };
    expect(EventRecord.safeParse(post).success).toBe(false);
    expect(EventAck.safeParse(post).success).toBe(false);
    for (const key of ['id', 'slug', 'status', 'start_date', 'end_date'] as const) {
      const { [key]: _gone, ...rest } = base;
      expect(EventAck.safeParse(rest).success, key).toBe(false);
    }
  });
});
