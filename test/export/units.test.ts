import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import {
  durationSeconds,
  eventTiming,
  EventRenderError,
  ExportParamsError,
  inWindow,
  plainText,
  plainTitle,
  renderEvent,
  renderIcs,
  venueGeo,
  venueLocation,
  vtimezone,
  windowQuery,
} from '../../src/export/index.ts';
import { offsetZoneSeconds } from '../../src/export/timing.ts';
import { localDay, parseEvents } from './support.ts';

const sec = (iso: string): number => Date.parse(iso) / 1000;

function rec(p: Partial<EventRecord> & Pick<EventRecord, 'id' | 'start_date' | 'end_date'>): EventRecord {
  return { status: 'publish', slug: 's', title: `event ${p.id}`, categories: [], tags: [], venue: [], organizer: [], ...p } as EventRecord;
}

describe('event timing', () => {
  it('all-day: DTEND is the day after the last day, whatever the site cutoff', () => {
    const t = eventTiming(rec({ id: 1, all_day: true, start_date: '2024-05-01 00:00:00', end_date: '2024-05-03 23:59:59', timezone: 'Europe/Berlin' }));
    expect(t.allDay).toBe(true);
    expect(t.zone).toBeNull();
    expect(t.endDayExclusive - t.startDay).toBe(3);
    // A 04:00 "end of day cutoff" stores 04:00:00 .. 03:59:59 of the day after the last one.
    const c = eventTiming(rec({ id: 2, all_day: true, start_date: '2024-05-01 04:00:00', end_date: '2024-05-04 03:59:59', timezone: 'UTC' }));
    expect(c.endDayExclusive - c.startDay).toBe(3);
    // Single day, and an end before the start, still give at least one day.
    const one = eventTiming(rec({ id: 3, all_day: true, start_date: '2024-05-01 00:00:00', end_date: '2024-05-01 00:00:00' }));
    expect(one.endDayExclusive - one.startDay).toBe(1);
  });

  it('reads wall time in the event zone, across DST (compatible disambiguation)', () => {
    const t = eventTiming(rec({ id: 1, start_date: '2025-03-30 01:30:00', end_date: '2025-03-30 03:30:00', timezone: 'Europe/Berlin' }));
    expect(t.zone).toBe('Europe/Berlin');
    expect(t.startSec).toBe(sec('2025-03-30T00:30:00Z'));
    expect(t.endSec).toBe(sec('2025-03-30T01:30:00Z'));
    // A wall time in the gap moves forward by the gap (RFC 5545 §3.3.5).
    const gap = eventTiming(rec({ id: 2, start_date: '2025-03-30 02:30:00', end_date: '2025-03-30 04:00:00', timezone: 'Europe/Berlin' }));
    expect(gap.startSec).toBe(sec('2025-03-30T01:30:00Z'));
  });

  it('offset zones and UTC are written in UTC; an empty or unknown zone uses utc_*', () => {
    expect(offsetZoneSeconds('UTC+2')).toBe(7200);
    expect(offsetZoneSeconds('UTC-3.5')).toBe(-12_600);
    expect(offsetZoneSeconds('UTC+5:30')).toBe(19_800);
    expect(offsetZoneSeconds('UTC')).toBe(0);
    expect(offsetZoneSeconds('UTC+15')).toBeUndefined();
    const off = eventTiming(rec({ id: 1, start_date: '2025-04-10 10:00:00', end_date: '2025-04-10 12:00:00', timezone: 'UTC-3.5' }));
    expect(off.zone).toBeNull();
    expect(off.startSec).toBe(sec('2025-04-10T13:30:00Z'));
    const etc = eventTiming(rec({ id: 2, start_date: '2025-04-10 10:00:00', end_date: '2025-04-10 12:00:00', timezone: 'Etc/UTC' }));
    expect(etc.zone).toBeNull();
    const none = eventTiming(rec({ id: 3, start_date: '2025-04-10 10:00:00', end_date: '2025-04-10 12:00:00', utc_start_date: '2025-04-10 08:00:00', utc_end_date: '2025-04-10 10:00:00', timezone: 'Mars/Olympus' }));
    expect(none.zone).toBeNull();
    expect(none.startSec).toBe(sec('2025-04-10T08:00:00Z'));
  });

  it('clamps an end before the start and rejects unreadable dates with a typed error', () => {
    const t = eventTiming(rec({ id: 1, start_date: '2025-04-10 10:00:00', end_date: '2025-04-10 09:00:00', timezone: 'Europe/Paris' }));
    expect(t.endSec).toBe(t.startSec);
    expect(() => eventTiming(rec({ id: 9, start_date: 'tomorrow', end_date: '', timezone: 'Europe/Paris' }))).toThrow(EventRenderError);
    expect(() => renderEvent(rec({ id: 9, start_date: '0000-00-00 00:00:00', end_date: '' }), { siteHost: 'h' })).toThrow(/event 9/);
  });
});

describe('VTIMEZONE', () => {
  const range = (a: string, b: string) => ({ minSec: sec(a), maxSec: sec(b) });

  it('uses the library block, renamed to the zone asked for (aliases keep their own TZID)', () => {
    const r = vtimezone('Africa/Accra', range('2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z'));
    expect(r.source).toBe('library');
    expect(r.block).toContain('TZID:Africa/Accra\r\n');
    expect(r.block).not.toContain('Abidjan');
    expect(vtimezone('Europe/Berlin', range('2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z')).source).toBe('library');
  });

  it('builds the block from real transitions when the current rules do not hold over the window', () => {
    const mx = vtimezone('America/Mexico_City', range('2021-06-01T00:00:00Z', '2021-12-01T00:00:00Z'));
    expect(mx.source).toBe('generated');
    expect(mx.block).toContain('TZOFFSETFROM:-0600\r\nTZOFFSETTO:-0500\r\nDTSTART:20210404T020000');
    // The library block is right again once the window is after the last change.
    expect(vtimezone('America/Mexico_City', range('2025-06-01T00:00:00Z', '2025-12-01T00:00:00Z')).source).toBe('library');
  });

  it('generated blocks resolve to the right instants in an independent parser', () => {
    const events = [
      rec({ id: 1, start_date: '2018-02-10 20:00:00', end_date: '2018-02-10 22:00:00', timezone: 'America/Sao_Paulo' }), // DST (-02)
      rec({ id: 2, start_date: '2018-03-10 20:00:00', end_date: '2018-03-10 22:00:00', timezone: 'America/Sao_Paulo' }), // standard (-03)
    ];
    const parsed = parseEvents(renderIcs(events, { name: 'x', lang: 'en', siteHost: 'h' }));
    expect((parsed.get('1@h')!.start as Date).toISOString()).toBe('2018-02-10T22:00:00.000Z');
    expect((parsed.get('2@h')!.start as Date).toISOString()).toBe('2018-03-10T23:00:00.000Z');
  });
});

describe('text', () => {
  it('decodes titles and flattens them to one line', () => {
    expect(plainTitle('Rock &amp; Roll &#8217;24')).toBe('Rock & Roll ’24');
    expect(plainTitle('<em>Big</em>\n  Night')).toBe('Big Night');
    expect(plainTitle('Plain title')).toBe('Plain title');
  });

  it('turns description HTML into readable plain text without control characters', () => {
    expect(plainText('<h2>Programme</h2><p>One\u0007</p><ul><li>a</li><li>b</li></ul><p><a href="https://x.org">https://x.org</a></p>')).toBe(
      'Programme\n\nOne\n\n * a\n * b\n\nhttps://x.org',
    );
    expect(plainText('   ')).toBe('');
  });

  it('builds LOCATION and GEO from the venue fields it has', () => {
    expect(venueLocation({ id: 1, venue: 'Hall &amp; Co', city: 'Lyon', country: 'France' })).toBe('Hall & Co, Lyon, France');
    expect(venueGeo({ id: 1, geo_lat: '45.76', geo_lng: '4.84' })).toEqual({ lat: 45.76, lon: 4.84 });
    expect(venueGeo({ id: 1, geo_lat: 'x', geo_lng: '4.84' })).toBeUndefined();
    expect(venueGeo({ id: 1, geo_lat: 95, geo_lng: 4 })).toBeUndefined();
  });

  it('renders an event with no venue ([]) or a multi-venue array', () => {
    const multi = renderEvent(rec({ id: 5, start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00', timezone: 'UTC', venue: [{ id: 1, venue: 'First' }, { id: 2, venue: 'Second' }] }), { siteHost: 'h' });
    expect(multi.text).toContain('LOCATION:First\r\n');
    const none = renderEvent(rec({ id: 6, start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00', timezone: 'UTC' }), { siteHost: 'h' });
    expect(none.text).not.toContain('LOCATION');
  });
});

describe('refresh interval', () => {
  it('accepts ISO 8601 durations and rejects the rest with a field-named error', () => {
    expect(durationSeconds('PT1H')).toBe(3600);
    expect(durationSeconds('P1D')).toBe(86_400);
    expect(durationSeconds('PT90M')).toBe(5400);
    expect(durationSeconds('P1W')).toBe(604_800);
    for (const bad of ['P', 'PT', '1H', 'PT0S', 'every hour', '-PT1H', 'pt1h', 'P1DT']) expect(() => durationSeconds(bad)).toThrow(ExportParamsError);
    expect(renderIcs([], { name: 'x', lang: 'en', siteHost: 'h', refreshInterval: 'PT90M' })).toContain('X-PUBLISHED-TTL:PT1H30M\r\n');
  });
});

describe('window', () => {
  const window = { from: new Date('2030-02-01T00:00:00Z'), to: new Date('2030-02-28T23:59:59Z') };

  it('queries overlap: explicit wide start_date/end_date, widened ends_after/starts_before, status publish', () => {
    expect(windowQuery(window)).toEqual({
      start_date: '1970-01-02',
      end_date: '2100-12-31',
      ends_after: '2030-01-30',
      starts_before: '2030-03-01',
      status: 'publish',
    });
  });

  it('regression: ICS export sent start_date=1970-01-01, which real sites reject as timestamp 0', () => {
    // Real TEC validates date filters with strtotime() as a boolean: the Unix-time-0 day is "invalid".
    const epochDay = (v: unknown) => typeof v === 'string' && v.startsWith('1970-01-01');
    const nearEpoch = { from: new Date('1970-01-03T00:00:00Z'), to: new Date('1969-12-31T00:00:00Z') };
    for (const w of [window, nearEpoch]) {
      const q = windowQuery(w) as Record<string, unknown>;
      for (const k of ['start_date', 'end_date', 'ends_after', 'starts_before']) expect(epochDay(q[k]), `${k}=${String(q[k])}`).toBe(false);
    }
    // Moving the epoch day only ever widens the query.
    expect(windowQuery(nearEpoch)).toMatchObject({ ends_after: '1969-12-31', starts_before: '1970-01-02' });
  });

  it('passes every filter through', () => {
    const q = windowQuery(window, { categories: ['music', 7], tags: [3], venue: [10], organizer: [11, 12], featured: false, search: 'jazz night', status: 'private' });
    expect(q).toMatchObject({ categories: ['music', 7], tags: [3], venue: [10], organizer: [11, 12], featured: false, search: 'jazz night', status: 'private' });
  });

  it('keeps events overlapping the window, edges included', () => {
    const at = (a: string, b: string) => inWindow({ startSec: sec(a), endSec: sec(b) }, window);
    expect(at('2030-01-10T00:00:00Z', '2030-02-05T00:00:00Z')).toBe(true); // started before, ends inside
    expect(at('2030-02-27T00:00:00Z', '2030-03-03T00:00:00Z')).toBe(true); // starts inside, ends after
    expect(at('2030-01-01T00:00:00Z', '2030-03-30T00:00:00Z')).toBe(true); // spans the window
    expect(at('2030-01-01T00:00:00Z', '2030-02-01T00:00:00Z')).toBe(true); // ends exactly at the start
    expect(at('2030-01-01T00:00:00Z', '2030-01-31T23:59:59Z')).toBe(false);
    expect(at('2030-03-01T00:00:00Z', '2030-03-01T01:00:00Z')).toBe(false);
  });
});

describe('all-day spans in node-ical', () => {
  it('reads VALUE=DATE spans back as the site days', () => {
    const parsed = parseEvents(renderIcs([rec({ id: 1, all_day: true, start_date: '2024-12-30 00:00:00', end_date: '2025-01-02 23:59:59', timezone: 'Pacific/Auckland' })], { name: 'x', lang: 'en', siteHost: 'h' }));
    const ev = parsed.get('1@h')!;
    expect([localDay(ev.start as Date), localDay(ev.end as Date)]).toEqual(['2024-12-30', '2025-01-03']);
  });
});

describe('collecting a window', () => {
  it('reports what it leaves out: hidden records, duplicates across pages, unreadable dates', async () => {
    const { collectFeed, parseFeedFileName, feedFileName } = await import('../../src/export/index.ts');
    const ev = (id: number, extra: Partial<EventRecord> = {}) => rec({ id, start_date: '2030-02-10 10:00:00', end_date: '2030-02-10 11:00:00', timezone: 'Europe/Berlin', ...extra });
    const queries: unknown[] = [];
    const fake = {
      events: {
        list: async (q: unknown) => {
          queries.push(q);
          return { items: [ev(1), ev(2, { hide_from_listings: true }), ev(3)], total: 6, totalPages: 2, page: 1 };
        },
        async *iterate(q: unknown) {
          queries.push(q);
          yield ev(3); // shifted onto page 2 while paging
          yield ev(4, { start_date: 'garbage' });
          yield ev(5, { start_date: '2030-05-10 10:00:00', end_date: '2030-05-10 11:00:00' });
        },
      },
    };
    const feed = await collectFeed(fake as never, { lang: 'en', window: { from: new Date('2030-02-01T00:00:00Z'), to: new Date('2030-02-28T00:00:00Z') }, siteHost: 'h' });
    expect(feed.events.map((e) => e.id)).toEqual([1, 3]);
    expect(feed.outsideWindow).toBe(1);
    expect(feed.skipped.map((s) => s.id)).toEqual([2, 3, 4]);
    expect(feed.skipped[0].reason).toBe('hidden from listings');
    expect(feed.read).toBe(feed.events.length + feed.outsideWindow + feed.skipped.length);
    expect(queries[0]).toMatchObject({ page: 1, per_page: 50, status: 'publish' });
    expect(queries[1]).toMatchObject({ page: 2, per_page: 50 });

    expect(feedFileName('city-events', 'fr')).toBe('city-events.fr.ics');
    expect(() => feedFileName('../etc', 'fr')).toThrow(ExportParamsError);
    expect(parseFeedFileName('city.fr.ics')).toEqual({ name: 'city', lang: 'fr' });
    expect(parseFeedFileName('.city.fr.ics.123.abc.tmp')).toBeUndefined();
    expect(parseFeedFileName('city.xx.ics')).toBeUndefined();
  });
});
