import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * The site index (src/write/site-index.ts) also serves venue/organizer CSV imports and dry runs:
 * one listing instead of a by-slug lookup per item, counted by the sandbox.
 */

type Env = Awaited<ReturnType<typeof testSite>>;

describe('site index: CSV venue/organizer imports and dry runs', () => {
  let redis: Redis;
  let env: Env;
  let dir: string;
  beforeAll(() => {
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-index-'));
  });
  beforeEach(async () => {
    env = await testSite();
    return () => env.close();
  });
  afterAll(async () => {
    await redis.quit();
  });

  const csv = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const csvParams = (location: string, kind: CsvImportParams['kind'], over: Partial<CsvImportParams> = {}): CsvImportParams => ({
    location, site: env.site, kind, sourceKey: `idx-${kind}`, lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 500, allowFiles: true, ...over,
  });

  it('regression: a venues CSV looked each row up by slug before creating it; now one listing page and one create per venue', async () => {
    const N = 30;
    const file = csv('venues.csv', 'Venue Name,Venue City\n' + Array.from({ length: N }, (_, i) => `Hall ${i},City ${i}`).join('\n') + '\n');
    // Two venues already there: linked (adopted), not created again.
    await env.client.venues.create({ venue: 'Hall 3', city: 'City 3' }, { lang: 'en' });
    await env.client.venues.create({ venue: 'Hall 7', city: 'City 7' }, { lang: 'en' });
    env.sandbox.resetStats();
    const r = await runCsvImport(csvParams(file, 'venues'), { redis, prefix: testPrefix() });
    expect(r.counts.venues).toMatchObject({ created: N - 2, unchanged: 2, failed: 0 });
    const s = env.sandbox.stats().byRoute;
    expect(s['GET /venues/by-slug/:slug']).toBeUndefined();
    expect(s['GET /venues']).toBe(1);
    expect(s['POST /venues']).toBe(N - 2);
  });

  it('regression: an organizers CSV looked each row up by slug; now one listing page and one create per organizer', async () => {
    const N = 12;
    const file = csv('organizers.csv', 'Organizer Name,Organizer Email\n' + Array.from({ length: N }, (_, i) => `Org ${i},org${i}@example.org`).join('\n') + '\n');
    env.sandbox.resetStats();
    const r = await runCsvImport(csvParams(file, 'organizers'), { redis, prefix: testPrefix() });
    expect(r.counts.organizers).toMatchObject({ created: N, failed: 0 });
    const s = env.sandbox.stats().byRoute;
    expect(s['GET /organizers/by-slug/:slug']).toBeUndefined();
    expect([s['GET /organizers'], s['POST /organizers']]).toEqual([1, N]);
  });

  it('regression: a dry run looked every event, venue and organizer up by slug; now listings tell what would be created or updated', async () => {
    const N = 60;
    const feed = await feedServer(generateIcsFeed({ events: N, seed: 5, recurringShare: 0, days: 120 }));
    try {
      const params: IcsImportParams = {
        location: feed.url, site: env.site, sourceKey: 'dry', lang: 'en', window: { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-31T00:00:00Z') },
        retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
        allow: [new URL(feed.url).host], refreshAfterMs: 0,
      };
      // The feed is on the site already.
      const wrote = await runIcsImport(params, { redis, prefix: testPrefix() });
      expect(wrote.counts.events.created).toBe(N);
      env.sandbox.resetStats();
      // A dry run with another ledger (nothing known): every event is on the site, so "would be updated".
      const dry = await runIcsImport({ ...params, dryRun: true }, { redis, prefix: testPrefix() });
      expect(dry.counts.events).toMatchObject({ updated: N, created: 0 });
      const s = env.sandbox.stats();
      expect(s.byRoute['GET /events/by-slug/:slug']).toBeUndefined();
      // The first run created its venues within a second or so: the site's pages of them repeat
      // records of the same second and miss as many (src/sandbox/linked.ts, byPostDate), and only
      // those the pages missed are looked up (page 1 alone holds 50 of them).
      const lookups = s.byRoute['GET /venues/by-slug/:slug'] ?? 0;
      expect(lookups).toBeLessThanOrEqual(Math.max(0, dry.counts.venues.read - 50));
      expect(s.byRoute['GET /organizers/by-slug/:slug']).toBeUndefined();
      expect(s.writes).toBe(0);
      // The preflight, one page per listing (events, venues, organizers) and the term listings.
      expect(s.total).toBeLessThanOrEqual(10 + lookups);
    } finally {
      await feed.close();
    }
  });
});
