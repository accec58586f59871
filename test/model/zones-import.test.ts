import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { testSite } from '../support/site.ts';

/** Zone defects found through a real import: a file on disk, the whole pipeline, a sandbox site. */
describe('offset TZIDs through a real ICS import', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  const dir = mkdtempSync(join(tmpdir(), 'calsync-zones-'));
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const importWith = async (tzid: string, key: string) => {
    const file = join(dir, `${key}.ics`);
    const body = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', `UID:${key}@test`, 'SUMMARY:Offset zone',
      `DTSTART;TZID=${tzid}:20300710T120000`, `DTEND;TZID=${tzid}:20300710T130000`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    writeFileSync(file, body);
    const report = await runIcsImport({
      location: file, site: env.site, sourceKey: key, lang: 'en',
      window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2031-01-01T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish',
      createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    expect(report.counts.events.created).toBe(1);
    return (env.sandbox.dump('en').events as any[]).find((e) => e.slug.startsWith(`${key}-`));
  };

  it('regression: UTC+3.5 TZID landed 30 minutes off (read as Etc/GMT-3)', async () => {
    const ev = await importWith('UTC+3.5', 'tz-plus-three-half');
    expect(ev.timezone).toBe('UTC+3.5');
    expect(ev.start_date).toBe('2030-07-10 12:00:00');
    expect(ev.utc_start_date).toBe('2030-07-10 08:30:00');
  });

  it('regression: UTC-3.5 TZID landed 30 minutes off (read as Etc/GMT+3)', async () => {
    const ev = await importWith('UTC-3.5', 'tz-minus-three-half');
    expect(ev.timezone).toBe('UTC-3.5');
    expect(ev.utc_start_date).toBe('2030-07-10 15:30:00');
  });
});
