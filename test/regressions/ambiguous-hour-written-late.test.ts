import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { testSite } from '../support/site.ts';

/**
 * Found comparing an import with what a real The Events Calendar site then held (fidelity lane): an
 * event at 02:30 Europe/Berlin on the day DST ends (the first 02:30, CEST, as RFC 5545 reads it, or
 * the same instant given in UTC) was stored an hour late, at 01:30Z: the site reads a repeated wall
 * time as the later instant east of UTC. An instant in the second 02:30 was stored right only by
 * that accident, while calsync's own reading of its draft said the other. Such instants are now
 * written in a fixed zone (src/model/site-time.ts); the sandbox reads wall times as the site does
 * (test/contract/ambiguous-times.test.ts). The feed is written for this test.
 */
const FEED = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//ambiguous hour regression//EN', 'X-WR-TIMEZONE:Europe/Berlin',
  ...vevent('tzid-first', 'DTSTART;TZID=Europe/Berlin:20271031T023000', 'DTEND;TZID=Europe/Berlin:20271031T031500'),
  ...vevent('utc-first', 'DTSTART:20271031T003000Z', 'DTEND:20271031T004500Z'),
  ...vevent('utc-second', 'DTSTART:20271031T013000Z', 'DTEND:20271031T014500Z'),
  ...vevent('new-york', 'DTSTART;TZID=America/New_York:20271107T013000', 'DTEND;TZID=America/New_York:20271107T014500'),
  ...vevent('nightly', 'DTSTART;TZID=Europe/Berlin:20271030T023000', 'DTEND;TZID=Europe/Berlin:20271030T030000', 'RRULE:FREQ=DAILY;COUNT=3'),
  'END:VCALENDAR', '',
].join('\r\n');

function vevent(uid: string, ...props: string[]): string[] {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', `SUMMARY:${uid}`, ...props, 'END:VEVENT'];
}

describe('regression: an event in the hour DST repeats was stored an hour late', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let file: string;
  beforeAll(async () => {
    env = await testSite({ siteTimezone: 'Europe/Berlin' });
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-ambiguous-')), 'fall-back.ics');
    writeFileSync(file, FEED);
  });
  afterAll(async () => {
    await env.close();
  });

  it('every occurrence is stored at its instant', async () => {
    const r = await runIcsImport({
      location: file, site: env.site, sourceKey: 'fall-back', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    expect(r.counts.events).toMatchObject({ created: 7, failed: 0 });
    const list = await env.client.events.list({ start_date: '2027-01-01', end_date: '2027-12-31', per_page: 50 } as never);
    const stored = (list.items as Array<Record<string, string>>).map((e) => `${e.title} ${e.utc_start_date} ${e.utc_end_date}`).sort();
    expect(stored).toEqual([
      'new-york 2027-11-07 05:30:00 2027-11-07 05:45:00',
      'nightly 2027-10-30 00:30:00 2027-10-30 01:00:00',
      // The first 02:30 (CEST), and its 30 minutes.
      'nightly 2027-10-31 00:30:00 2027-10-31 01:00:00',
      'nightly 2027-11-01 01:30:00 2027-11-01 02:00:00',
      'tzid-first 2027-10-31 00:30:00 2027-10-31 02:15:00',
      'utc-first 2027-10-31 00:30:00 2027-10-31 00:45:00',
      'utc-second 2027-10-31 01:30:00 2027-10-31 01:45:00',
    ]);
  });
});
