import type { EventRecord } from '../../src/api/index.ts';

/**
 * Fixed site records for the golden files: every shape the renderer has to handle. They mimic
 * what the site returns (src/sandbox/shapes.ts): venue as an object or `[]`, organizer always an array,
 * embedded terms, HTML title/description, `YYYY-MM-DD HH:MM:SS` dates without offsets.
 */

type Fixture = Partial<EventRecord> & Pick<EventRecord, 'id' | 'title' | 'start_date' | 'end_date'>;

function record(f: Fixture): EventRecord {
  return {
    status: 'publish',
    slug: `event-${f.id}`,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    all_day: false,
    hide_from_listings: false,
    date_utc: '2024-01-10 09:00:00',
    modified_utc: '2024-02-01 12:00:00',
    url: `https://events.example.org/event/event-${f.id}/`,
    ...f,
  } as EventRecord;
}

const term = (id: number, name: string, slug: string) => ({ id, name, slug, taxonomy: 'tribe_events_cat', parent: 0, count: 1 });

export const FIXTURES: EventRecord[] = [
  // A concert with everything: venue with address and coordinates, two organizers, categories,
  // HTML description, featured image, entity-encoded title.
  record({
    id: 4711,
    title: 'Spring Concert &#8211; Bach &amp; Brahms',
    start_date: '2025-03-21 19:30:00',
    end_date: '2025-03-21 21:30:00',
    utc_start_date: '2025-03-21 23:30:00',
    utc_end_date: '2025-03-22 01:30:00',
    timezone: 'America/New_York',
    modified_utc: '2025-02-01 21:00:05',
    date_utc: '2025-01-10 14:12:00',
    description:
      '<p>An evening of <strong>chamber music</strong>; tickets at the door, cash only.</p>\n<ul><li>Bach: Suite No. 1</li><li>Brahms: Sonata</li></ul>\n<p>More at <a href="https://tickets.example.org/spring">the box office</a> &amp; online.</p>',
    image: { url: 'https://events.example.org/wp-content/uploads/2025/01/poster.jpg', id: 812, extension: 'jpg' },
    venue: {
      id: 55,
      venue: 'Town Hall',
      address: '1 Main St',
      city: 'Springfield',
      state: 'NY',
      stateprovince: 'NY',
      zip: '12345',
      country: 'United States',
      geo_lat: '42.1015',
      geo_lng: -72.5898,
    },
    organizer: [
      { id: 61, organizer: 'Arts Council', email: 'info@example.org' },
      { id: 62, organizer: 'Friends of &quot;Music&quot;', email: 'friends@example.org', phone: '+1 555 0100' },
    ],
    categories: [term(7, 'Music', 'music'), term(8, 'Concerts &amp; Recitals', 'concerts')],
  }),
  // One all-day day in Berlin.
  record({
    id: 4712,
    title: 'Open Day',
    all_day: true,
    start_date: '2025-06-14 00:00:00',
    end_date: '2025-06-14 23:59:59',
    timezone: 'Europe/Berlin',
  }),
  // Multi-day all-day: the site's last day is 05-03 (23:59:59), so DTEND is 05-04 (exclusive).
  record({
    id: 4713,
    title: 'Spring Festival',
    all_day: true,
    start_date: '2024-05-01 00:00:00',
    end_date: '2024-05-03 23:59:59',
    timezone: 'Europe/Paris',
    venue: { id: 56, venue: 'Parc de la Villette', city: 'Paris', zip: '75019', country: 'France', geo_lat: 48.8938, geo_lng: 2.3908 },
    categories: [term(9, 'Festivals', 'festivals')],
  }),
  // DST edge: crosses the spring-forward gap in Berlin (01:30 CET → 03:30 CEST is one real hour).
  record({
    id: 4714,
    title: 'Night Walk (clocks go forward)',
    start_date: '2025-03-30 01:30:00',
    end_date: '2025-03-30 03:30:00',
    timezone: 'Europe/Berlin',
  }),
  // DST edge the other way: New York's fall-back night (00:30 EDT → 03:00 EST is 3.5 real hours).
  record({
    id: 4715,
    title: 'Late Show; extra hour',
    start_date: '2025-11-02 00:30:00',
    end_date: '2025-11-02 03:00:00',
    timezone: 'America/New_York',
  }),
  // Another zone, with a non-ASCII title and a long plain description (folding across UTF-8).
  record({
    id: 4716,
    title: 'Tōkyō Jazz Night 🎷',
    start_date: '2025-07-05 18:00:00',
    end_date: '2025-07-05 22:00:00',
    timezone: 'Asia/Tokyo',
    description: `<p>${'Ein außergewöhnlicher Abend mit Musik, Gesprächen und Überraschungen für alle Gäste. '.repeat(3).trim()}</p>`,
  }),
  // An offset zone: no VTIMEZONE can name it portably, so UTC times (wall − 2 h).
  record({
    id: 4717,
    title: 'Offset-zone meetup',
    start_date: '2025-04-10 10:00:00',
    end_date: '2025-04-10 12:00:00',
    timezone: 'UTC+2',
  }),
  // No zone at all: the site's utc_* fields, as UTC times.
  record({
    id: 4718,
    title: 'Zone-less webinar',
    start_date: '2025-04-11 09:00:00',
    end_date: '2025-04-11 10:00:00',
    utc_start_date: '2025-04-11 09:00:00',
    utc_end_date: '2025-04-11 10:00:00',
    timezone: '',
  }),
  // A past window under rules that changed since: São Paulo observed DST in 2018, so the library's
  // current-rules block would be wrong and the VTIMEZONE is built from the real transitions.
  record({
    id: 4719,
    title: 'Carnaval rehearsal',
    start_date: '2018-11-10 20:00:00',
    end_date: '2018-11-10 23:00:00',
    timezone: 'America/Sao_Paulo',
  }),
  // Password-protected as lists redact it (src/sandbox/shapes.ts): empty text, null flags, no image.
  record({
    id: 4720,
    title: 'Members only',
    start_date: '2025-09-01 18:00:00',
    end_date: '2025-09-01 19:00:00',
    timezone: 'Europe/Berlin',
    description: '',
    all_day: null,
    featured: null,
    image: false,
    organizer: [{ id: 63, organizer: 'Board' }],
  }),
];

/** What each fixture must mean, independently of how it is written. */
export const EXPECTED: Record<number, { start: string; end: string; tz?: string; allDay?: [string, string] }> = {
  4711: { start: '2025-03-21T23:30:00Z', end: '2025-03-22T01:30:00Z', tz: 'America/New_York' },
  4712: { start: '', end: '', allDay: ['2025-06-14', '2025-06-15'] },
  4713: { start: '', end: '', allDay: ['2024-05-01', '2024-05-04'] },
  4714: { start: '2025-03-30T00:30:00Z', end: '2025-03-30T01:30:00Z', tz: 'Europe/Berlin' },
  4715: { start: '2025-11-02T04:30:00Z', end: '2025-11-02T08:00:00Z', tz: 'America/New_York' },
  4716: { start: '2025-07-05T09:00:00Z', end: '2025-07-05T13:00:00Z', tz: 'Asia/Tokyo' },
  4717: { start: '2025-04-10T08:00:00Z', end: '2025-04-10T10:00:00Z' },
  4718: { start: '2025-04-11T09:00:00Z', end: '2025-04-11T10:00:00Z' },
  4719: { start: '2018-11-10T22:00:00Z', end: '2018-11-11T01:00:00Z', tz: 'America/Sao_Paulo' },
  4720: { start: '2025-09-01T16:00:00Z', end: '2025-09-01T17:00:00Z', tz: 'Europe/Berlin' },
};
