import { describe, expect, it } from 'vitest';
import { CalendarClient } from '../../src/api/index.ts';
import { icsImportSuite } from '../support/ics-import.ts';

/**
 * Found trying calsync against a real TEC 6.17.2 site as a user would: a venue calsync created,
 * then deleted for good on the site (`DELETE /wp/v2/tribe_venue/<id>?force=true`, or an emptied
 * trash). The ledger still held its id as unchanged, so every later import whose feed changed an
 * event at that venue sent the dead id, and the site refused the event (400 rest_invalid_param
 * venue), on every run, while the report said the venue was unchanged. Now the venue is created
 * again from the feed, as an event the site lost is (test/contract/linked-deleted.test.ts has the
 * site's answers).
 */

const vevent = (uid: string, title: string, day: number) => [
  'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', `DTSTART:202705${String(day).padStart(2, '0')}T180000Z`, 'DURATION:PT1H',
  `SUMMARY:${title}`, 'LOCATION:Gone Hall\\, 1 Main Street', 'END:VEVENT',
];
const calendar = (version: number) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN',
  // a changes with each version; b never does.
  ...vevent('a@test', `Talk a v${version}`, 1), ...vevent('b@test', 'Talk b', 2), 'END:VCALENDAR', ''].join('\r\n');

interface SiteEvent { id: number; title: string; venue: { id: number } | [] }
interface SiteVenue { id: number; venue: string; status: string }

describe('regression: a venue deleted for good on the site made every later write of its events fail', () => {
  const suite = icsImportSuite(calendar(1));
  // The default refresh: an unchanged feed after a clean run is skipped (nothing to do).
  const run = () => suite.run({ refreshAfterMs: undefined });
  const dump = () => suite.env.sandbox.dump('en') as unknown as { events: SiteEvent[]; venues: SiteVenue[] };
  const venueOf = (title: string) => {
    const e = dump().events.find((x) => x.title.startsWith(title));
    return e && !Array.isArray(e.venue) ? e.venue.id : undefined;
  };

  it('the changed event is written with the venue created again; the next import links the unchanged one too', async () => {
    expect((await run()).counts.events.created).toBe(2);
    const [hall] = dump().venues;
    expect(venueOf('Talk a')).toBe(hall!.id);
    const wp = new CalendarClient({ ...suite.env.site.connection, namespace: 'wp/v2' });
    await wp.request({ method: 'DELETE', path: `/tribe_venue/${hall!.id}`, query: { force: 'true' } });
    await wp.close();
    expect(dump().venues).toEqual([]);

    suite.feed.set(calendar(2));
    const r = await run();
    expect(r.counts.events).toMatchObject({ updated: 1, failed: 0 });
    // Read once, as what happened to it: not "unchanged" (from the ledger) and "created" both.
    expect(r.counts.venues).toMatchObject({ read: 1, created: 1, unchanged: 0 });
    const [again] = dump().venues;
    expect(again).toMatchObject({ venue: 'Gone Hall', status: 'publish' });
    expect(again!.id).not.toBe(hall!.id);
    expect(venueOf('Talk a v2')).toBe(again!.id);
    expect(r.warnings.filter((w) => w.includes('no longer on the site'))).toEqual([`venue "Gone Hall" (id ${hall!.id}) is no longer on the site (deleted for good): created again from the feed for the events that name it`]);

    // b was not written in that run (unchanged): the next one, although the feed is the same, is
    // not skipped, and links it to the venue created again.
    const next = await run();
    expect(next.notModified).toBeFalsy();
    expect(next.counts.events).toMatchObject({ updated: 1, unchanged: 1, failed: 0 });
    expect(venueOf('Talk b')).toBe(again!.id);
    expect(dump().venues).toHaveLength(1);
    // Done: the one after that finds nothing to do.
    expect((await run()).notModified).toBe(true);
  });
});
