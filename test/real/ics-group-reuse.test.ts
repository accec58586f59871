import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { ReportJson } from '../../src/report/report.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { testRedis } from '../support/redis.ts';
import { cli, CountingProxy, credentials, FeedServer, globals, NO_WRITES, report, writesIn, type CliResult } from './support/cli.ts';
import { realSites, SiteApi, type Json, type RealSite } from './support/site.ts';

/**
 * ICS group reuse (src/runs/group-reuse.ts) against real TEC sites, both versions: a re-import whose
 * only change is every DTSTAMP reuses every UID group and writes nothing; a category deleted on the
 * site makes the groups naming it normalize again, the category made again and its events fixed.
 * Each re-import is compared with the same run made without the records (their Redis key deleted
 * first): the report must be the same.
 */

const WINDOW = ['--window', '2030-01-01..2030-12-31'];
// Weekly series with an EXDATE and a moved override, single and all-day events, venues, organizers,
// categories, in several zones; all in the window.
const FEED = generateIcsFeed({ events: 24, seed: 11, start: new Date(Date.UTC(2030, 1, 3)), days: 200, recurringShare: 0.25 });
const UIDS = new Set([...FEED.matchAll(/^UID:(.+)$/gm)].map((m) => m[1]!.trim()));
const restamp = (text: string, stamp: string) => text.replace(/^DTSTAMP:.*$/gm, `DTSTAMP:${stamp}`);

/** What a user compares between two runs: counts and each item's kind, slug, outcome, site id and origin. */
function userView(r: ReportJson): unknown {
  const items = r.items.map((i) => JSON.stringify([i.kind, i.slug, i.outcome, i.siteId, i.origin?.uid, i.origin?.occurrence, i.origin?.line])).sort();
  return { counts: r.counts, items, warnings: r.warnings, retire: r.retire, linked: r.linked, notModified: r.notModified };
}

const categoriesBySlug = (events: Json[]) => Object.fromEntries(events.map((e) => [e.slug, ((e.categories ?? []) as Json[]).map((t) => t.name).sort()]));

describe.each([['A', () => realSites().a], ['B', () => realSites().b]] as const)('ICS group reuse on site %s', (_name, which) => {
  let site: RealSite;
  let api: SiteApi;
  let redis: Redis;
  const proxy = { p: undefined as CountingProxy | undefined, url: '' };
  const feed = new FeedServer();
  let feedUrl = '';
  let g: string[] = [];
  let prefix = '';

  beforeAll(async () => {
    site = which();
    api = new SiteApi(site);
    await api.reset();
    proxy.p = new CountingProxy(site.url);
    proxy.url = await proxy.p.start();
    feed.body = FEED;
    feedUrl = await feed.start();
    g = globals();
    prefix = g[g.indexOf('--prefix') + 1]!;
    redis = testRedis();
  });
  afterAll(async () => {
    await proxy.p?.stop();
    await feed.stop();
    redis?.disconnect();
  });

  // Every run gets a feed whose DTSTAMPs changed (as a publisher's feed does), so none is skipped as unchanged content.
  let stamps = 0;
  const run = (): Promise<CliResult> => {
    feed.body = restamp(FEED, `20300101T1000${String(++stamps).padStart(2, '0')}Z`);
    return cli([...g, '--log-level', 'info', 'import', 'ics', feedUrl, '--site', proxy.url, '--namespace', site.namespace, '--allow', new URL(feedUrl).host, ...WINDOW, '--json'], credentials(site));
  };
  const reusedIn = (r: CliResult) => Number(/"reused":(\d+)/.exec(r.stderr + r.stdout)?.[1] ?? NaN);
  const dropRecords = async () => {
    const keys = await redis.keys(`${prefix}:state:groups:*`);
    expect(keys.length).toBe(1);
    await redis.del(...keys);
  };

  it('imports the feed', async () => {
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.counts.events.created).toBeGreaterThan(40);
    expect(rep.counts.events).toMatchObject({ failed: 0, read: rep.counts.events.created });
    expect(await api.events('2030-01-01', '2030-12-31')).toHaveLength(rep.counts.events.created);
  });

  it('a re-import with every DTSTAMP rewritten reuses every UID group and writes nothing, with the same report as without reuse', async () => {
    const before = await api.events('2030-01-01', '2030-12-31');
    proxy.p!.clear();
    const reused = await run();
    expect(reused.code, reused.stderr).toBe(0);
    expect(reusedIn(reused)).toBe(UIDS.size);
    const rep = report(reused);
    expect(writesIn(rep)).toEqual(NO_WRITES);
    expect(rep.counts.events).toMatchObject({ read: before.length, unchanged: before.length });
    expect(proxy.p!.writes()).toEqual([]);

    // The same re-import without the records: every group normalized, the same report.
    await dropRecords();
    const full = await run();
    expect(full.code, full.stderr).toBe(0);
    expect(reusedIn(full)).toBe(0);
    expect(userView(rep)).toEqual(userView(report(full)));
    expect(rep.requests!.total).toBeLessThanOrEqual(report(full).requests!.total);
    expect(proxy.p!.writes()).toEqual([]);
    const after = await api.events('2030-01-01', '2030-12-31');
    expect(after.map((e) => [e.id, e.modified_utc])).toEqual(before.map((e) => [e.id, e.modified_utc]));
  });

  it('a category deleted on the site is made again and its events fixed, as without reuse', async () => {
    const before = await api.events('2030-01-01', '2030-12-31');
    const terms = (await api.all('categories', { hide_empty: 'false' })).filter((t) => t.count > 0).sort((a, b) => a.count - b.count);
    const victim = terms[0]!;
    const carrying = before.filter((e) => ((e.categories ?? []) as Json[]).some((t) => t.name === victim.name));
    expect(carrying.length).toBeGreaterThan(0);

    // Deletes the category, re-imports (with reuse, or without the records), and returns the report.
    const deleteAndRun = async (withRecords: boolean): Promise<ReportJson> => {
      const id = (await api.all('categories', { hide_empty: 'false' })).find((t) => t.name === victim.name)!.id;
      await api.ok('DELETE', `/categories/${id}?force=true`);
      expect(categoriesBySlug(await api.events('2030-01-01', '2030-12-31'))).not.toEqual(categoriesBySlug(before));
      if (!withRecords) await dropRecords();
      const r = await run();
      expect(r.code, r.stderr).toBe(0);
      const rep = report(r);
      // The groups naming the category normalized again; the others reused.
      if (withRecords) expect(reusedIn(r)).toBeLessThan(UIDS.size);
      expect(rep.counts.categories).toMatchObject({ created: 1, failed: 0 });
      expect(rep.counts.events).toMatchObject({ updated: carrying.length, created: 0, failed: 0, retired: 0 });
      expect(new Set(rep.items.filter((i) => i.outcome === 'updated' && i.kind === 'events').map((i) => i.siteId))).toEqual(new Set(carrying.map((e) => e.id)));
      expect(categoriesBySlug(await api.events('2030-01-01', '2030-12-31'))).toEqual(categoriesBySlug(before));
      return rep;
    };

    const withReuse = await deleteAndRun(true);
    const without = await deleteAndRun(false);
    // The term's id changes with each deletion; everything else is the same.
    const noTermIds = (r: ReportJson) => ({ ...r, items: r.items.map((i) => (i.kind === 'categories' ? { ...i, siteId: 0 } : i)) });
    expect(userView(noTermIds(withReuse))).toEqual(userView(noTermIds(without)));

    // And the next run reuses every group again.
    proxy.p!.clear();
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(reusedIn(again)).toBe(UIDS.size);
    expect(writesIn(report(again))).toEqual(NO_WRITES);
    expect(proxy.p!.writes()).toEqual([]);
  });
});
