import { describe, expect, it } from 'vitest';
import { EventRecord, eventVenue } from '../../src/api/index.ts';

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
});
