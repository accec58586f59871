import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { ImageGuard } from '../../src/sources/fetch/image-guard.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Regression: the image guard (src/sources/fetch/image-guard.ts) judged an image URL by the host
 * WHATWG URL parsing gives it, and the URL went to the site as written. The site parses it with
 * PHP, which reads a backslash as an ordinary character: `http://93.184.215.14\@169.254.169.254/…`
 * is the public 93.184.215.14 for WHATWG (`\` is `/`, so `@169.254…` is path) and 169.254.169.254
 * with user `93.184.215.14\` for PHP's parse_url (checked with php 8: host "169.254.169.254").
 * A feed or CSV file could so make the site fetch its cloud metadata endpoint.
 */

const SMUGGLED = 'http://93.184.215.14\\@169.254.169.254/latest/meta-data/iam/security-credentials/x.png';
const PUBLIC = 'http://93.184.215.14/poster.png';
const WINDOW = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-31T23:59:59Z') };

type Env = Awaited<ReturnType<typeof testSite>>;
const storedImages = (env: Env): (string | undefined)[] =>
  (env.sandbox.dump('en').events as { image?: { url: string } | false }[]).map((e) => (e.image ? e.image.url : undefined));
const options = (env: Env, sourceKey: string) =>
  ({ site: env.site, sourceKey, lang: 'en', defaultTimezone: 'UTC', status: 'publish', createTerms: true, dryRun: false }) as const;

describe('regression: an image URL whose host PHP reads differently (backslash) passed the image guard', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it.each([
    [SMUGGLED],
    ['https://93.184.215.14:443\\@10.0.0.5/x.png'],
    ['http:/\\93.184.215.14\\@127.0.0.1/x.png'],
    ['http://93.184.215.14/x\t.png'],
  ])('the guard refuses %j', async (url) => {
    expect(await new ImageGuard().problem(url)).toContain('read differently by other URL parsers');
  });

  it('public URLs as written are still accepted', async () => {
    expect(await new ImageGuard().problem(PUBLIC)).toBeUndefined();
    expect(await new ImageGuard().problem('http://93.184.215.14/a%5Cb/@x.png?q=@1')).toBeUndefined();
  });

  it('ICS: the smuggled URL never reaches the site', async () => {
    const env = await testSite();
    const vevent = (i: number, image: string) =>
      ['BEGIN:VEVENT', `UID:img-${i}@test`, `DTSTART:2025030${i + 1}T100000Z`, 'DURATION:PT1H', `SUMMARY:e${i}`, `ATTACH;FMTTYPE=image/png:${image}`, 'END:VEVENT'].join('\r\n');
    const feed = await feedServer(['BEGIN:VCALENDAR', 'VERSION:2.0', vevent(0, SMUGGLED), vevent(1, PUBLIC), 'END:VCALENDAR', ''].join('\r\n'));
    try {
      const report = await runIcsImport(
        { ...options(env, 'img'), location: feed.url, window: WINDOW, retire: 'keep', onEdit: 'overwrite', categoriesAs: 'categories', allow: [new URL(feed.url).host] },
        { redis, prefix: testPrefix() },
      );
      expect(report.counts.events).toMatchObject({ created: 2, failed: 0 });
      expect(storedImages(env).sort()).toEqual([PUBLIC, undefined]);
      expect(report.warnings.join('\n')).toContain('read differently by other URL parsers');
    } finally {
      await feed.close();
      await env.close();
    }
  });

  it('CSV: the smuggled URL never reaches the site', async () => {
    const env = await testSite();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-img-')), 'img.csv');
    writeFileSync(file, ['Event Name,Event Start Date,Event Featured Image', `a,2025-05-01,${SMUGGLED}`, `b,2025-05-02,${PUBLIC}`].join('\n'));
    try {
      const report = await runCsvImport({ ...options(env, 'img-csv'), location: file, kind: 'events', chunkSize: 20, allowFiles: true }, { redis, prefix: testPrefix() });
      expect(report.counts.events).toMatchObject({ created: 2, failed: 0 });
      expect(storedImages(env).sort()).toEqual([PUBLIC, undefined]);
    } finally {
      await env.close();
    }
  });
});
