import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunFailedError } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, testSite } from '../support/site.ts';

function vevent(uid: string, summary: string, start: string, extra: string[] = []): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20250101T000000Z', `DTSTART:${start}`, 'DURATION:PT1H', `SUMMARY:${summary}`, ...extra, 'END:VEVENT'].join('\r\n');
}

/**
 * 2,100 single events, the first with 60 categories (over the 50 kept per event), then 5 daily
 * series of `count` occurrences: with count 60 the feed is over a 2,300-occurrence limit, which is
 * found only after the first parts were planned (src/runs/import-ics-early.ts).
 */
function feed(count: number): string {
  const many = `CATEGORIES:${Array.from({ length: 60 }, (_, i) => `Topic ${i}`).join(',')}`;
  const singles = Array.from({ length: 2100 }, (_, i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const month = String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0');
    return vevent(`s${i}@test`, `Single ${i}`, `2025${month}${day}T${String(8 + (i % 10)).padStart(2, '0')}0000Z`, i === 0 ? [many] : ['CATEGORIES:Music']);
  });
  const series = Array.from({ length: 5 }, (_, i) => vevent(`d${i}@test`, `Daily ${i}`, `2025010${i + 1}T120000Z`, [`RRULE:FREQ=DAILY;COUNT=${count}`]));
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync tests//EN', ...singles, ...series, 'END:VCALENDAR', ''].join('\r\n');
}

/**
 * Found in review: a feed refused after its first parts were planned (here: over the occurrence
 * limit) reported no item and wrote nothing, but its report kept the warning about an event whose
 * categories exceeded the limit per event: a warning about an event the run never wrote.
 */
describe('regression: a term-limit warning stayed on the report of a feed that was refused', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let server: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  beforeAll(async () => {
    redis = testRedis();
    env = await testSite();
    server = await feedServer(feed(20));
  });
  afterAll(async () => {
    await server.close();
    await env.close();
    await redis.quit();
  });
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: server.url, site: env.site, sourceKey: 'terms-late', lang: 'en', window: { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
    allow: [new URL(server.url).host], refreshAfterMs: 0, maxOccurrencesPerFile: 2300, ...over,
  });

  it('a re-import refused late (occurrence limit) has no term-limit warning; accepted, it has one', { timeout: 120_000 }, async () => {
    const ctx = { redis, prefix: testPrefix() };
    const first = await runIcsImport(params(), ctx);
    expect(first.counts.events.created).toBe(2200);
    expect(first.warnings.filter((w) => w.includes('beyond the first 50'))).toHaveLength(1);
    env.sandbox.resetStats();

    // The first parts are known to the ledger, so they are planned while the rest is parsed.
    server.set(feed(60));
    const err = await runIcsImport(params(), ctx).catch((e: unknown) => e);
    expect((err as RunFailedError).code).toBe('ics-too-many-occurrences');
    const refused = (err as RunFailedError).report!;
    expect(refused.items).toEqual([]);
    expect(env.sandbox.stats().writes).toBe(0);
    expect(refused.warnings.filter((w) => w.includes('beyond the first 50'))).toEqual([]);

    server.set(feed(20));
    const again = await runIcsImport(params(), ctx);
    expect(again.counts.events).toMatchObject({ unchanged: 2200, failed: 0 });
    expect(again.warnings.filter((w) => w.includes('beyond the first 50'))).toHaveLength(1);
  });
});
