import { describe, expect, it } from 'vitest';
import { preflight, type CalendarClient, type EventListQuery, type SiteConnection } from '../../src/api/index.ts';
import { listingRule, recordTimes, windowCovers, type ListingRule } from '../../src/model/run-window.ts';
import { listBound } from '../../src/runs/sync-site.ts';
import { isReal, openTarget, useTarget, type Target } from './harness.ts';

/**
 * The `/events` window filters make whole days of start_date/end_date and compare them with each
 * event's own wall-clock dates, or with its UTC dates on a site whose zone is UTC: the rule
 * src/model/run-window.ts gives the sync's retirement. Events in zones east and west of UTC at
 * both edges of a window. On a real site the rule follows the site's zone setting; against the
 * sandbox both kinds of site are checked.
 */

const window = { from: new Date('2031-01-10T00:00:00Z'), to: new Date('2031-01-20T23:59:59Z') };
// [name, start, end, all day, zone]
const EVENTS: [string, string, string, boolean, string][] = [
  ['tokyo-day-before', '2031-01-09 00:00:00', '2031-01-09 23:59:59', true, 'Asia/Tokyo'],
  ['tokyo-first-day', '2031-01-10 00:00:00', '2031-01-10 23:59:59', true, 'Asia/Tokyo'],
  ['berlin-past-midnight', '2031-01-10 00:30:00', '2031-01-10 00:45:00', false, 'Europe/Berlin'],
  ['newyork-evening-before', '2031-01-09 20:00:00', '2031-01-09 22:00:00', false, 'America/New_York'],
  ['newyork-last-evening', '2031-01-20 22:00:00', '2031-01-20 23:00:00', false, 'America/New_York'],
  ['tokyo-last-day', '2031-01-20 00:00:00', '2031-01-20 23:59:59', true, 'Asia/Tokyo'],
  ['tokyo-morning-after', '2031-01-21 05:00:00', '2031-01-21 06:00:00', false, 'Asia/Tokyo'],
];
/** What each rule lists, worked out by hand from the dates above. */
const LISTED: Record<ListingRule, string[]> = {
  'local-days': ['berlin-past-midnight', 'newyork-last-evening', 'tokyo-first-day', 'tokyo-last-day'],
  'utc-days': ['newyork-evening-before', 'tokyo-last-day', 'tokyo-morning-after'],
};

/** Creates the events (titles `<prefix> <name>`), lists the window as the sync does, and checks both against the rule. */
async function checkWindow(c: CalendarClient, conn: SiteConnection, prefix: string, track: (id: number) => void): Promise<ListingRule> {
  const rule = listingRule(await preflight(conn, { write: true }));
  const name = (title: string) => title.slice(prefix.length + 1);
  const records = [];
  for (const [n, start, end, allDay, zone] of EVENTS) {
    const rec = await c.events.create({ title: `${prefix} ${n}`, start_date: start, end_date: end, all_day: allDay, timezone: zone, status: 'publish' });
    track(rec.id);
    records.push(rec);
  }
  const query = { start_date: listBound(window.from), end_date: listBound(window.to), status: 'publish', per_page: 50, search: prefix } as EventListQuery;
  const listed: string[] = [];
  for await (const r of c.events.iterate(query)) listed.push(name(r.title));
  expect(listed.sort()).toEqual(LISTED[rule]);
  // The retirement's rule agrees with the site on every record as the site returned it.
  const covered = records.filter((r) => windowCovers({ ...window, rule }, recordTimes(r))).map((r) => name(r.title));
  expect(covered.sort()).toEqual(LISTED[rule]);
  return rule;
}

describe("window filters: start_date/end_date are whole days of each event's own dates (UTC dates on a UTC site)", () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });
  const conn = (): SiteConnection => ({ restRoot: t.url, namespace: t.namespace, auth: { kind: 'basic', user: t.user, password: t.password } });

  it('this site lists what its rule says', async () => {
    const rule = await checkWindow(c, conn(), t.prefix, (id) => t.track('events', id));
    if (!isReal) expect(rule).toBe('utc-days');
  });

  it.skipIf(isReal)("a site in Asia/Tokyo compares each event's own wall-clock dates", async () => {
    const tokyo = await openTarget({ siteTimezone: 'Asia/Tokyo' });
    try {
      const tokyoConn = { restRoot: tokyo.url, namespace: tokyo.namespace, auth: { kind: 'basic' as const, user: tokyo.user, password: tokyo.password } };
      expect(await checkWindow(tokyo.client(), tokyoConn, tokyo.prefix, (id) => tokyo.track('events', id))).toBe('local-days');
    } finally {
      await tokyo.close();
    }
  });
});
