import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import type { ResolvedSite } from '../../src/config/sites.ts';
import { feedServer, testSite } from '../support/site.ts';

/** What a whole site holds, in a form two sites can be compared by. */
function siteState(dump: { events: unknown[] }) {
  return (dump.events as any[])
    .map((e) => [e.slug, e.status, e.title, e.start_date, e.end_date, e.timezone, e.all_day, e.venue?.venue ?? null, e.organizer.map((o: any) => o.organizer).join('|'), e.categories.map((c: any) => c.name).sort().join('|')].join(' ¦ '))
    .sort();
}

describe('a fault storm (20% 5xx, 10% 429 with Retry-After, 5% dropped connections, random latency)', () => {
  let feed: Awaited<ReturnType<typeof feedServer>>;
  beforeAll(async () => {
    feed = await feedServer(generateIcsFeed({ events: 40, seed: 12, start: new Date(Date.UTC(2027, 0, 4)), days: 90 }));
  });
  afterAll(async () => feed.close());

  const params = (site: ResolvedSite): IcsImportParams => ({
    location: feed.url, site, sourceKey: 'storm', lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') },
    retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host],
  });

  it('ends in exactly the state a clean run gives, never sends before Retry-After, and reports its retries', async () => {
    const calm = await testSite();
    const storm = await testSite({ errorRate: 0.2, throttleRate: 0.1, retryAfterSeconds: 1, dropRate: 0.05, latencyMs: 2, latencyJitterMs: 20, seed: 7 });
    try {
      const expected = await runIcsImport(params(calm.site));
      expect(expected.counts.events.failed).toBe(0);
      // More patience per request than the default, so a seeded storm cannot fail an item.
      const stormy = { ...storm.site, connection: { ...storm.site.connection, retry: { maxRetries: 10, minDelayMs: 50, maxDelayMs: 2000 } } };
      const r = await runIcsImport(params(stormy));
      expect(r.counts.events).toMatchObject({ failed: 0, created: expected.counts.events.created });
      expect(siteState(storm.sandbox.dump('en'))).toEqual(siteState(calm.sandbox.dump('en')));
      const faults = storm.sandbox.stats().faults;
      expect(faults.error + faults.throttle + faults.drop).toBeGreaterThan(20);
      expect(storm.sandbox.stats().retryAfterViolations).toBe(0);
      // Retries are reported and bounded: at most the faults the site injected.
      expect(r.requests?.retries).toBeGreaterThan(0);
      expect(r.requests!.retries).toBeLessThanOrEqual(faults.error + faults.throttle + faults.drop);
      expect(r.requests!.throttled).toBe(faults.throttle);
    } finally {
      await calm.close();
      await storm.close();
    }
  }, 180_000);
});
