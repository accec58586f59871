import { afterEach, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/api/index.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { feedServer, testSite } from '../support/site.ts';

/** The most requests in flight at once, from the client's own request hook (start = end − duration). */
function peak(intervals: Array<{ start: number; end: number }>): number {
  const edges = intervals.flatMap((i) => [[i.start, 1], [i.end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (now += d));
  return max;
}

describe('write concurrency', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  it('regression: overlapping ICS import batches put up to twice the site concurrency of event writes in flight', async () => {
    const env = await testSite({ latencyMs: 15 });
    const feed = await feedServer(generateIcsFeed({ events: 700, seed: 3, recurringShare: 0, start: new Date(Date.UTC(2027, 0, 4)), days: 200 }));
    closers.push(() => env.close(), () => feed.close());
    const intervals: Array<{ start: number; end: number }> = [];
    // Event writes only: term and venue lookups of the next batch's planning may overlap them, and
    // the connection pool (one connection per unit of concurrency) holds the wire to the limit.
    const onRequest = (r: RequestInfo) => {
      const end = performance.now();
      if (r.method !== 'GET' && r.route.startsWith('/events')) intervals.push({ start: end - r.durationMs, end });
    };
    const concurrency = 3;
    const site = { ...env.site, concurrency, connection: { ...env.site.connection, connections: concurrency, onRequest } };
    const report = await runIcsImport({
      location: feed.url, site, sourceKey: 'conc', lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'keep', onEdit: 'overwrite',
      defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host],
    });
    expect(report.counts.events.created).toBeGreaterThan(600);
    expect(report.counts.events.failed).toBe(0);
    expect(intervals.length).toBeGreaterThan(600);
    expect(peak(intervals)).toBeLessThanOrEqual(concurrency);
  }, 120_000);
});
