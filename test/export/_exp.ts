import { renderIcs } from '../../src/export/render.ts';
import type { EventRecord } from '../../src/api/index.ts';
const base = { status: 'publish', slug: 's', categories: [], tags: [], venue: [], organizer: [] } as const;
const evs: EventRecord[] = [
  { ...base, id: 10, title: 'Rock &amp; Roll &#8217;24', start_date: '2024-03-31 01:00:00', end_date: '2024-03-31 04:00:00', timezone: 'Europe/Berlin', modified_utc: '2024-02-01 10:00:00', date_utc: '2024-01-01 00:00:00', description: '<p>Hello <a href="https://x.org">x</a>; a, b\\c</p><ul><li>one</li></ul>', url: 'https://site/event/r/', image: { url: 'https://site/i.jpg', id: 3 },
    venue: { id: 5, venue: 'Town Hall', address: '1 Main St', city: 'Springfield', zip: '12345', country: 'United States', geo_lat: '40.1', geo_lng: -73.5 },
    organizer: [{ id: 6, organizer: 'Arts "Council"', email: 'info@example.org' }, { id: 7, organizer: 'Second', email: 'b@example.org', phone: '+1 555' }],
    categories: [{ id: 1, name: 'Music &amp; Arts', slug: 'music' }] } as EventRecord,
  { ...base, id: 11, title: 'All day', all_day: true, start_date: '2024-05-01 00:00:00', end_date: '2024-05-03 23:59:59', timezone: 'UTC+2' } as EventRecord,
  { ...base, id: 12, title: 'Offset', start_date: '2024-05-01 10:00:00', end_date: '2024-05-01 11:00:00', timezone: 'UTC+2' } as EventRecord,
];
console.log(renderIcs(evs, { name: 'main', lang: 'en', siteHost: 'events.example.org' }));
