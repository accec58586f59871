import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/**
 * Found syncing one real TEC 6.17.1 site into another: 5 of the target's 69 venues, all created in
 * the same second, were on no page of `GET /venues` (two pages repeated 5 others), so the run took
 * them as absent. It reported them "created" (the site handed back its own record by title) and
 * from then on treated the site's venues as its own: `link` (leave their fields alone) no longer
 * held. The sandbox now pages ties the way MySQL may (test/contract/linked-paging.test.ts).
 */

const VENUES = 60;

const feed = () =>
  [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN',
    ...Array.from({ length: VENUES }, (_, i) => [
      'BEGIN:VEVENT', `UID:paging-${i}@example.org`, `SUMMARY:Talk ${i}`, `LOCATION:Hall ${i}`,
      `DTSTART:20310310T${String(i % 24).padStart(2, '0')}0000Z`, `DTEND:20310310T${String(i % 24).padStart(2, '0')}3000Z`, 'DTSTAMP:20260101T000000Z', 'END:VEVENT',
    ]).flat(),
    'END:VCALENDAR', '',
  ].join('\r\n');

describe('regression: venues the site listed on no page (created in the same second) were taken as absent', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let file: string;
  beforeAll(async () => {
    // One clock second for every record: the site's own venues all share one post date.
    env = await testSite({ now: () => new Date('2026-11-27T08:18:52Z') });
    redis = testRedis();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-paging-')), 'talks.ics');
    writeFileSync(file, feed());
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });

  it("the site's own venues are all linked, none reported created, their fields left alone", async () => {
    for (let i = 0; i < VENUES; i++) await env.client.venues.create({ venue: `Hall ${i}`, city: 'Their town' });
    const params: IcsImportParams = {
      location: file, site: env.site, sourceKey: 'talks', lang: 'en', window: { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-12-31T23:59:59Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    };
    const report = await runIcsImport(params, { redis, prefix: testPrefix() });
    expect(report.counts.events).toMatchObject({ created: VENUES, failed: 0 });
    expect(report.counts.venues).toMatchObject({ read: VENUES, created: 0, updated: 0, unchanged: VENUES, failed: 0 });
    const venues = env.sandbox.dump('en').venues as { venue: string; city?: string }[];
    expect(venues).toHaveLength(VENUES);
    expect(venues.filter((v) => v.city !== 'Their town').map((v) => v.venue)).toEqual([]);
  });
});
