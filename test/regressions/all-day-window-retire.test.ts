import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { EventRecord } from '../../src/api/index.ts';
import { parseWindow } from '../../src/config/dates.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/**
 * The retire step only looks at ledger entries "inside the window". It compared the entry's UTC
 * start with the window's first day at 00:00 UTC, while the run had selected events otherwise:
 * a sync by the source's `start_date`/`end_date` filters (each event's own local days, or UTC days
 * on a UTC site), an ICS import by overlap with the window. East of UTC an
 * all-day event on the first day starts the evening before in UTC, so it was never retired;
 * west of UTC an evening event of the day before starts inside the window in UTC, so a sync
 * retired it although the source still had it.
 */

const WIDE = '2027-03-01..2027-03-31';
const NARROW = '2027-03-10..2027-03-31';

describe("regression: an all-day event on the window's first day east of UTC was never retired", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(() => redis.disconnect());

  describe('sync', () => {
    const sites: Awaited<ReturnType<typeof testSite>>[] = [];
    afterAll(async () => {
      for (const s of sites) await s.close();
    });

    /** A source (site zone `siteZone`) with events in `zone` and `events` (title, start, end, all day), synced once over WIDE into a fresh target. */
    const setup = async (zone: string, events: [string, string, string, boolean][], siteZone = zone) => {
      const source = await testSite({ siteTimezone: siteZone });
      const target = await testSite({ siteTimezone: siteZone });
      sites.push(source, target);
      const ids = new Map<string, number>();
      for (const [title, start, end, allDay] of events) {
        const r = await source.client.events.create({ title, start_date: start, end_date: end, all_day: allDay, timezone: zone, status: 'publish' });
        ids.set(title, r.id);
      }
      const ctx: RunContext = { redis, prefix: testPrefix() };
      const params = (window: string): SyncParams => ({
        from: { ...source.site, key: 'src', name: 'source' }, to: target.site, lang: 'en', window: parseWindow(window),
        retire: 'trash', onEdit: 'overwrite', dryRun: false, settledMs: 0,
      });
      const first = await runSiteSync(params(WIDE), ctx);
      expect(first.counts.events).toMatchObject({ created: events.length, failed: 0 });
      const live = () => (target.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status !== 'trash').map((e) => e.title).sort();
      return { source, ids, live, sync: (window: string) => runSiteSync(params(window), ctx) };
    };

    it('Asia/Tokyo: the first day\'s all-day event is retired; the day before is left alone', async () => {
      const s = await setup('Asia/Tokyo', [
        ['Day before', '2027-03-09 00:00:00', '2027-03-09 23:59:59', true],
        ['First day', '2027-03-10 00:00:00', '2027-03-10 23:59:59', true],
        ['Stays A', '2027-03-15 10:00:00', '2027-03-15 11:00:00', false],
        ['Stays B', '2027-03-16 10:00:00', '2027-03-16 11:00:00', false],
        ['Stays C', '2027-03-17 00:00:00', '2027-03-17 23:59:59', true],
      ]);
      await s.source.client.events.delete(s.ids.get('Day before')!);
      await s.source.client.events.delete(s.ids.get('First day')!);
      const r = await s.sync(NARROW);
      expect(r.counts.events).toMatchObject({ retired: 1, failed: 0 });
      expect(r.retire).toMatchObject({ candidates: 1, retired: 1, refused: false });
      expect(s.live()).toEqual(['Day before', 'Stays A', 'Stays B', 'Stays C']);
    });

    it('Europe/Berlin: the same, with a timed event just after local midnight on the first day', async () => {
      const s = await setup('Europe/Berlin', [
        ['Day before', '2027-03-09 00:00:00', '2027-03-09 23:59:59', true],
        ['First day', '2027-03-10 00:00:00', '2027-03-10 23:59:59', true],
        ['Past midnight', '2027-03-10 00:30:00', '2027-03-10 00:45:00', false],
        ['Stays A', '2027-03-15 10:00:00', '2027-03-15 11:00:00', false],
        ['Stays B', '2027-03-16 10:00:00', '2027-03-16 11:00:00', false],
        ['Stays C', '2027-03-17 10:00:00', '2027-03-17 11:00:00', false],
      ]);
      for (const t of ['Day before', 'First day', 'Past midnight']) await s.source.client.events.delete(s.ids.get(t)!);
      const r = await s.sync(NARROW);
      expect(r.retire).toMatchObject({ candidates: 2, retired: 2, refused: false });
      expect(s.live()).toEqual(['Day before', 'Stays A', 'Stays B', 'Stays C']);
    });

    it('America/New_York: an evening event the day before the window, still in the source, is not retired', async () => {
      // 20:00 on 9 March in New York is 01:00 UTC on 10 March: inside the window in UTC, not listed by the source.
      const s = await setup('America/New_York', [
        ['Evening before', '2027-03-09 20:00:00', '2027-03-09 22:00:00', false],
        ['Stays A', '2027-03-15 10:00:00', '2027-03-15 11:00:00', false],
        ['Stays B', '2027-03-16 10:00:00', '2027-03-16 11:00:00', false],
      ]);
      const r = await s.sync(NARROW);
      expect(r.retire).toMatchObject({ candidates: 0, retired: 0 });
      expect(s.live()).toEqual(['Evening before', 'Stays A', 'Stays B']);
    });

    it('a UTC site, which lists by UTC dates: a Tokyo all-day event on the first day, still in the source, is not retired', async () => {
      // Its UTC start is the day before the window, so the UTC site does not list it for the narrower window.
      const s = await setup('Asia/Tokyo', [
        ['First day', '2027-03-10 00:00:00', '2027-03-10 23:59:59', true],
        ['Gone', '2027-03-15 10:00:00', '2027-03-15 11:00:00', false],
        ['Stays A', '2027-03-16 10:00:00', '2027-03-16 11:00:00', false],
        ['Stays B', '2027-03-17 10:00:00', '2027-03-17 11:00:00', false],
      ], 'UTC');
      await s.source.client.events.delete(s.ids.get('Gone')!);
      const r = await s.sync(NARROW);
      expect(r.retire).toMatchObject({ candidates: 1, retired: 1, refused: false });
      expect(s.live()).toEqual(['First day', 'Stays A', 'Stays B']);
    });
  });

  describe('ICS import', () => {
    let env: Awaited<ReturnType<typeof testSite>>;
    let dir: string;
    beforeAll(async () => {
      env = await testSite({ siteTimezone: 'Asia/Tokyo' });
      dir = mkdtempSync(path.join(tmpdir(), 'calsync-allday-'));
    });
    afterAll(async () => {
      await env.close();
    });

    const vevent = (uid: string, lines: string[]) => ['BEGIN:VEVENT', `UID:${uid}@example.org`, `SUMMARY:${uid}`, 'DTSTAMP:20270101T000000Z', ...lines, 'END:VEVENT'];
    const allDay = (uid: string, day: string, next: string) => vevent(uid, [`DTSTART;VALUE=DATE:${day}`, `DTEND;VALUE=DATE:${next}`]);
    const timed = (uid: string, day: string) => vevent(uid, [`DTSTART;TZID=Asia/Tokyo:${day}T100000`, `DTEND;TZID=Asia/Tokyo:${day}T110000`]);
    const feed = (name: string, events: string[][]) => {
      const file = path.join(dir, name);
      writeFileSync(file, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...events.flat(), 'END:VCALENDAR', ''].join('\r\n'));
      return file;
    };
    const params = (location: string, window: string): IcsImportParams => ({
      location, site: env.site, sourceKey: 'allday', lang: 'en', window: parseWindow(window), retire: 'trash', onEdit: 'overwrite',
      status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    const live = () => (env.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status !== 'trash').map((e) => e.title).sort();

    it('Asia/Tokyo: the first day\'s all-day event is retired; the day before is left alone', async () => {
      const ctx: RunContext = { redis, prefix: testPrefix() };
      const stays = [timed('stays-a', '20270315'), timed('stays-b', '20270316'), allDay('stays-c', '20270317', '20270318')];
      const full = feed('full.ics', [allDay('day-before', '20270309', '20270310'), allDay('first-day', '20270310', '20270311'), ...stays]);
      const first = await runIcsImport(params(full, WIDE), ctx);
      expect(first.counts.events).toMatchObject({ created: 5, failed: 0 });
      const r = await runIcsImport(params(feed('less.ics', stays), NARROW), ctx);
      expect(r.retire).toMatchObject({ candidates: 1, retired: 1, refused: false });
      expect(live()).toEqual(['day-before', 'stays-a', 'stays-b', 'stays-c']);
    });
  });
});
