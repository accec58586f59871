import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { testSite } from '../support/site.ts';

/**
 * Found comparing an import with what a real The Events Calendar site then held (fidelity lane):
 * every backslash of a title, description, cost, venue or organizer was gone (`C:\Temp \o/` stored
 * as `C:Temp o/`), because the site's event, venue and organizer routes store their input through
 * `wp_unslash`. The sandbox now unslashes as the site does (src/sandbox/slashes.ts) and the client
 * sends those bodies slashed (src/api/wp-slash.ts); test/contract/backslashes.test.ts checks the site.
 * The feed is written for this test (ICS escapes a backslash as `\\`).
 */
const TEXT = String.raw`C:\Temp \o/ a\\b`;
const ics = (esc: (s: string) => string): string =>
  [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//backslash regression//EN',
    'BEGIN:VEVENT', 'UID:bs-1', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z',
    `SUMMARY:Title ${esc(TEXT)}`, `DESCRIPTION:Text ${esc(TEXT)}`, `LOCATION:Hall ${esc(TEXT)}`,
    // A parameter value has no escapes: the name is written plainly.
    String.raw`ORGANIZER;CN="Org C:\Temp \o/":mailto:org@example.org`,
    'END:VEVENT', 'END:VCALENDAR', '',
  ].join('\r\n');

describe('regression: backslashes in text were stripped by the site (wp_unslash)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let dir: string;
  beforeAll(async () => {
    env = await testSite();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-backslash-'));
  });
  afterAll(async () => {
    await env.close();
  });
  const window = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') };
  const onSite = async (title: string) => {
    const list = await env.client.events.list({ start_date: '2027-01-01', end_date: '2027-12-31', per_page: 50 } as never);
    return (list.items as Array<Record<string, any>>).find((e) => e.title === title);
  };

  it('an ICS import keeps them in the title, description, venue and organizer', async () => {
    const file = path.join(dir, 'bs.ics');
    writeFileSync(file, ics((s) => s.replace(/\\/g, '\\\\')));
    const r = await runIcsImport({
      location: file, site: env.site, sourceKey: 'bs-ics', lang: 'en', window,
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    expect(r.counts.events).toMatchObject({ created: 1, failed: 0 });
    const e = await onSite(`Title ${TEXT}`);
    expect(e, 'the event, under its title with the backslashes').toBeDefined();
    expect(e!.description).toContain(`Text ${TEXT}`);
    expect(e!.venue.venue).toBe(`Hall ${TEXT}`);
    expect(e!.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([String.raw`Org C:\Temp \o/`]);
  });

  it('a CSV import keeps them in the title, description and venue', async () => {
    const file = path.join(dir, 'bs.csv');
    writeFileSync(file, `title,start_date,end_date,timezone,description,venue\n"Row ${TEXT}",2027-03-11 09:00,2027-03-11 10:00,UTC,"Text ${TEXT}","Room ${TEXT}"\n`);
    const r = await runCsvImport({ location: file, site: env.site, kind: 'events', sourceKey: 'bs-csv', lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 10, allowFiles: true });
    expect(r.counts.events).toMatchObject({ created: 1, failed: 0 });
    const e = await onSite(`Row ${TEXT}`);
    expect(e, 'the row, under its title with the backslashes').toBeDefined();
    expect(e!.description).toContain(`Text ${TEXT}`);
    expect(e!.venue.venue).toBe(`Room ${TEXT}`);
  });
});
