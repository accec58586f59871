import ical, { type VEvent } from 'node-ical';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, credentials, globals, report } from './support/cli.ts';
import { CALENDAR_ZONE, feedOccurrences, wallTime } from './support/feed.ts';
import { realSites, SiteApi, siteUtc, type Json, type RealSite } from './support/site.ts';

const FEED_TEXT = readFileSync(fileURLToPath(new URL('./fixtures/festival.ics', import.meta.url)), 'utf8');
const FROM = new Date('2030-06-13T00:00:00Z');
const TO = new Date('2030-07-10T23:59:59Z');

/** Seeds a site with the fixture's occurrences through the bare REST API (independent of calsync's import). */
async function seed(api: SiteApi): Promise<void> {
  for (const o of feedOccurrences(FEED_TEXT, new Date('2030-01-01T00:00:00Z'), new Date('2030-12-31T23:59:59Z'))) {
    const zone = o.zone && o.zone !== 'Etc/UTC' ? o.zone : CALENDAR_ZONE;
    await api.ok('POST', '/events', o.allDay
      ? { title: o.title, all_day: true, start_date: `${o.firstDay} 00:00:00`, end_date: `${o.lastDay} 23:59:59`, timezone: CALENDAR_ZONE, status: 'publish' }
      : { title: o.title, start_date: wallTime(o.start, zone), end_date: wallTime(o.end, zone), timezone: zone, status: 'publish' });
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
const localDay = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

function exportDescribe(which: 'a' | 'b') {
  const site: RealSite = realSites()[which];
  describe(`ICS export of a window from TEC ${site.version} (${which === 'a' ? 'site A' : 'site B'})`, () => {
    const api = new SiteApi(site);
    beforeAll(async () => {
      await api.reset();
      await seed(api);
    });

    it('holds exactly the site\'s events that overlap the window, with the site\'s instants, zones and all-day dates (read by node-ical)', async () => {
      const out = mkdtempSync(path.join(tmpdir(), 'calsync-real-export-'));
      const r = await cli([...globals(), 'export', 'ics', '--site', site.url, '--namespace', site.namespace, '--from', '2030-06-13', '--to', '2030-07-10', '--out', out, '--json'], credentials(site));
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout.trim().startsWith('{') ? report(r) : undefined).toBeDefined();
      const files = readdirSync(out).filter((f) => f.endsWith('.ics'));
      expect(files).toEqual(['events.en.ics']);
      const exported = Object.values(ical.sync.parseICS(readFileSync(path.join(out, files[0]), 'utf8'))).filter((v) => v?.type === 'VEVENT') as VEvent[];

      // The site's own JSON, read in full, and the overlap rule applied here on its UTC instants.
      const all = await api.events('2030-01-01', '2030-12-31');
      const inWindow = all.filter((e) => siteUtc(e.utc_start_date) <= TO.getTime() && siteUtc(e.utc_end_date) >= FROM.getTime());
      expect(inWindow.length).toBeGreaterThan(3);
      expect(inWindow.length).toBeLessThan(all.length);
      expect(exported.map((v) => String(v.summary)).sort()).toEqual(inWindow.map((e) => e.title).sort());

      for (const v of exported) {
        const start = v.start as Date & { tz?: string };
        const e: Json | undefined = v.datetype === 'date'
          ? inWindow.find((x) => x.title === v.summary && x.all_day && x.start_date.slice(0, 10) === localDay(start))
          : inWindow.find((x) => x.title === v.summary && siteUtc(x.utc_start_date) === start.getTime());
        expect(e, `${v.summary} ${start.toISOString()} matches a site event`).toBeDefined();
        if (v.datetype === 'date') {
          expect(e!.all_day).toBe(true);
          // DTEND of an all-day event is the day after its last day.
          expect(localDay(v.end as Date)).toBe(dayAfter(e!.end_date.slice(0, 10)));
        } else {
          expect(e!.all_day).toBe(false);
          expect(start.tz).toBe(e!.timezone);
          expect((v.end as Date).getTime()).toBe(siteUtc(e!.utc_end_date));
        }
      }
    });
  });
}

exportDescribe('a');
exportDescribe('b');
