import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Found onboarding 600 event rows (chunks of 500) that all name one category: the report said
 * "categories read 2: 1 created, 1 unchanged". Each chunk resolved the category again and the
 * chunks' reports were added up, so a venue or term named in every chunk of a 100k-row file would
 * read as 200 of them. A linked record is one item however many chunks use it.
 */
describe('regression: a CSV run counted each venue, organizer and term once per chunk', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let file: string;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-linked-chunks-')), 'kurse.csv');
    const rows = Array.from({ length: 30 }, (_, i) => `Kochkurs ${i + 1},2031-03-${String(1 + (i % 28)).padStart(2, '0')} 18:00,Küche,Kochschule,Kurse,${i % 2 ? 'abends' : 'früh'}`);
    writeFileSync(file, ['Event Name,Event Start Date,Event Venue Name,Event Organizer Name,Event Category,Event Tags', ...rows, ''].join('\n'));
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });
  const params = (over: Partial<CsvImportParams> = {}): CsvImportParams => ({
    location: file, site: env.site, kind: 'events', sourceKey: 'kurse', lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 7, allowFiles: true, ...over,
  });

  it('reports each linked record once, with the outcome it had (created on the first run, unchanged on the rerun)', async () => {
    const ctx = { redis, prefix: testPrefix() };
    const first = await runCsvImport(params(), ctx);
    expect(first.counts.events).toMatchObject({ read: 30, created: 30 });
    for (const kind of ['venues', 'organizers', 'categories'] as const) expect(first.counts[kind], kind).toMatchObject({ read: 1, created: 1, unchanged: 0 });
    expect(first.counts.tags).toMatchObject({ read: 2, created: 2, unchanged: 0 });
    expect(first.items.filter((i) => i.kind !== 'events')).toHaveLength(5);

    const again = await runCsvImport(params(), ctx);
    for (const kind of ['venues', 'organizers', 'categories'] as const) expect(again.counts[kind], kind).toMatchObject({ read: 1, unchanged: 1 });
    expect(again.counts.tags).toMatchObject({ read: 2, unchanged: 2 });
  });
});
