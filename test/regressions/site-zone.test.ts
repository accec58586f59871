import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { CsvRefusedError } from '../../src/sources/csv/errors.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';
import { createReadStream } from 'node:fs';

/** Issue 13 items 3 and 8: floating times are read in the site's own zone; reruns with a zone never duplicate. */

describe('issue 13: the default zone is the site zone', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let dir: string;
  beforeAll(async () => {
    env = await testSite({ siteTimezone: 'Europe/Berlin' });
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-zone-'));
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });

  const csvFile = (name: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, 'title,start_date,end_date\nMorning talk,2027-03-10 09:00,2027-03-10 10:00\nEvening talk,2027-07-10 19:00,2027-07-10 20:00\n');
    return file;
  };
  const csvParams = (location: string, sourceKey: string, over: Partial<CsvImportParams> = {}): CsvImportParams => ({
    location, site: env.site, kind: 'events', sourceKey, lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 50, allowFiles: true, ...over,
  });
  const mine = (source: string) => (env.sandbox.dump('en').events as { slug: string; timezone: string; utc_start_date: string }[]).filter((e) => e.slug.startsWith(`${source}-`));

  it('regression: a CSV without a time zone was silently read as UTC', async () => {
    const r = await runCsvImport(csvParams(csvFile('floating.csv'), 'floating'));
    expect(r.defaultTimezone).toEqual({ zone: 'Europe/Berlin', from: "the site's zone, from its timezone_string" });
    const events = mine('floating');
    expect(events.map((e) => e.timezone)).toEqual(['Europe/Berlin', 'Europe/Berlin']);
    expect(events.map((e) => e.utc_start_date).sort()).toEqual(['2027-03-10 08:00:00', '2027-07-10 17:00:00']);
  });

  it('regression: a rerun with --default-tz duplicated every event (the same zone as the site, then another)', async () => {
    const ctx: RunContext = { redis, prefix: testPrefix() };
    const file = csvFile('rerun.csv');
    expect((await runCsvImport(csvParams(file, 'rerun'), ctx)).counts.events.created).toBe(2);
    const same = await runCsvImport(csvParams(file, 'rerun', { defaultTimezone: 'Europe/Berlin' }), ctx);
    expect(same.counts.events).toMatchObject({ created: 0, unchanged: 2 });
    // A corrected zone moves the events; it does not make new ones.
    const moved = await runCsvImport(csvParams(file, 'rerun', { defaultTimezone: 'America/New_York' }), ctx);
    expect(moved.counts.events).toMatchObject({ created: 0, updated: 2 });
    expect(mine('rerun').map((e) => e.timezone)).toEqual(['America/New_York', 'America/New_York']);
  });

  it('regression: floating ICS times were read in UTC, not the site zone', async () => {
    const file = path.join(dir, 'floating.ics');
    writeFileSync(file, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', 'BEGIN:VEVENT', 'UID:float-1@example.org', 'SUMMARY:Floating', 'DTSTART:20270310T090000', 'DTEND:20270310T100000', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'));
    const r = await runIcsImport({
      location: file, site: env.site, sourceKey: 'icsfloat', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    expect(r.defaultTimezone?.zone).toBe('Europe/Berlin');
    expect(mine('icsfloat').map((e) => [e.timezone, e.utc_start_date])).toEqual([['Europe/Berlin', '2027-03-10 08:00:00']]);
  });

  it('regression: the CSV hint named a --timezone flag that does not exist', async () => {
    const file = csvFile('hint.csv');
    const err = await inspectCsv(() => createReadStream(file), { kind: 'events', sourceKey: 'hint', sourceName: 'hint.csv', defaultTimezone: 'Europe/Berln', status: 'publish' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvRefusedError);
    expect(String((err as Error).message)).toContain('--default-tz');
    expect(String((err as Error).message)).not.toContain('--timezone');
  });
});
