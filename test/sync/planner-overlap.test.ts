import { beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, SiteSync, syncReport, type SyncPage, type SyncParams } from '../../src/runs/sync-site.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { mapConcurrent } from '../../src/util/pool.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';

const EVENTS = 24;
const PAGE = 3; // 8 pages
const LATENCY_MS = 30;

/** Most intervals open at one instant. */
function peakOverlap(spans: { from: number; to: number }[]): number {
  const edges = spans.flatMap((s) => [[s.from, 1], [s.to, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (open += d));
  return peak;
}

// The planner (SiteSync.plan) once read the source a page at a time: listing, then the raw event
// texts, then the raw venue texts, one round trip after another, which made it most of a queued
// sync at 50 ms latency (4 worker processes could not help).
describe('sync planner: pages planned side by side', () => {
  let source: TestSite;
  let target: TestSite;
  let redis: Redis;
  const requests: { route: string; from: number; to: number }[] = [];
  let report: ReportJson;

  useSitePair((pair) => ({ source, target, redis } = pair), { target: { latencyMs: LATENCY_MS } });
  beforeAll(async () => {
    const c = source.client;
    const venue = await c.venues.create({ venue: 'Planner Hall', city: 'Springfield' } as never);
    const organizer = await c.organizers.create({ organizer: 'Planner Org', email: 'org@example.org' } as never);
    const cat = await c.categories.create({ name: 'Planner' });
    await mapConcurrent(Array.from({ length: EVENTS }, (_, i) => i), 8, (i) => {
      const d = `2027-02-${String(1 + i).padStart(2, '0')}`;
      return c.events.create({ title: `Planner ${i}`, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`, timezone: 'Europe/Berlin', slug: `planner-${i}`, venue: venue.id, organizer: [organizer.id], categories: [cat.id] } as never);
    });
    source.sandbox.setFaults({ latencyMs: LATENCY_MS });
    const p: SyncParams = {
      from: { ...source.site, key: 'src', name: 'source' },
      to: { ...target.site, concurrency: 8 },
      lang: 'en',
      window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') },
      retire: 'trash',
      onEdit: 'overwrite',
      dryRun: false,
      pageSize: PAGE,
      settledMs: 0,
    };
    const onRequest = (site: string, info: { method: string; route: string; durationMs: number }) => {
      const to = performance.now();
      requests.push({ route: `${site === 'src' ? 'src' : 'dst'} ${info.method} ${info.route}`, from: to - info.durationMs, to });
    };
    report = await runSiteSync(p, { redis, prefix: testPrefix(), onRequest });
  }, 120_000);

  it('regression: the planner read one source page at a time (raw event texts never overlapped)', () => {
    const raw = requests.filter((r) => r.route === 'src GET /wp/v2/tribe_events');
    // One per page, and once every page is planned one listing of the source's events, which
    // finds those hidden from listings (test/regressions/sync-hidden-event-never-copied.test.ts).
    expect(raw).toHaveLength(EVENTS / PAGE + 1);
    expect(peakOverlap(raw)).toBeGreaterThanOrEqual(2);
  });

  it('regression: the raw text of the same venue and organizer was read again for every page', () => {
    expect(requests.filter((r) => r.route === 'src GET /wp/v2/tribe_venue')).toHaveLength(1);
    expect(requests.filter((r) => r.route === 'src GET /wp/v2/tribe_organizer')).toHaveLength(1);
  });

  it("regression: an event's venue and organizer were looked up only after its category was created", () => {
    const first = (route: string) => requests.find((r) => r.route === route);
    const category = first('dst POST /categories');
    expect(category).toBeDefined();
    for (const route of ['dst GET /venues/by-slug/:slug', 'dst GET /organizers/by-slug/:slug']) {
      expect(first(route)?.from, route).toBeLessThan(category!.to);
    }
  });

  it('pages racing for the same new venue, organizer and category still create one of each on the target', () => {
    expect(report.counts.events).toMatchObject({ created: EVENTS, failed: 0 });
    const routes = target.sandbox.stats().byRoute;
    expect(routes['POST /venues']).toBe(1);
    expect(routes['POST /organizers']).toBe(1);
    expect(routes['POST /categories']).toBe(1);
    const dump = target.sandbox.dump('en');
    expect((dump.venues as unknown[]).length).toBe(1);
    expect((dump.organizers as unknown[]).length).toBe(1);
    expect((dump.categories as { name: string }[]).filter((c) => c.name === 'Planner')).toHaveLength(1);
  });
});

// A queued sync's page is written by another job than the one that planned it: its writer checks
// the venue and organizer ids of the plan (not in the target's trash) before writing with them.
describe('a page written by another job than its planner', () => {
  it("regression: the page's venue was looked at only after its events' dates were listed", async () => {
    const redis = testRedis();
    const source = await testSite();
    const target = await testSite({ latencyMs: LATENCY_MS });
    try {
      const c = source.client;
      const venue = await c.venues.create({ venue: 'Page Hall', city: 'Springfield' } as never);
      await mapConcurrent(Array.from({ length: 4 }, (_, i) => i), 4, (i) => c.events.create({ title: `Page ${i}`, start_date: `2027-03-0${1 + i} 10:00:00`, end_date: `2027-03-0${1 + i} 11:00:00`, timezone: 'UTC', venue: venue.id } as never));
      const requests: { route: string; from: number; to: number }[] = [];
      const onRequest = (site: string, info: { method: string; route: string; durationMs: number }) => {
        const to = performance.now();
        if (site !== 'src') requests.push({ route: `${info.method} ${info.route}`, from: to - info.durationMs, to });
      };
      const p: SyncParams = { from: { ...source.site, key: 'src', name: 'source' }, to: target.site, lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') }, retire: 'trash', onEdit: 'overwrite', dryRun: false, settledMs: 0 };
      const ctx = { redis, prefix: testPrefix(), onRequest };
      const planner = new SiteSync(p, ctx, syncReport(p, ctx));
      const pages: SyncPage[] = [];
      await planner.plan(async (page) => void pages.push(page));
      await planner.close();
      requests.length = 0;
      const writer = new SiteSync(p, ctx, syncReport(p, ctx));
      for (const page of pages) await writer.write(page);
      await writer.close();
      const first = (route: string) => requests.find((r) => r.route === route);
      expect(first('GET /events')).toBeDefined();
      expect(first('GET /venues/:id')?.from).toBeLessThan(first('GET /events')!.to);
      expect(target.sandbox.stats().byRoute['POST /events']).toBe(4);
    } finally {
      await source.close();
      await target.close();
      await redis.quit();
    }
  });
});
