import { describe, expect, it } from 'vitest';
import { ledgerKey } from '../../src/write/ledger.ts';
import { icsImportSuite } from '../support/ics-import.ts';

/**
 * Found trying calsync on a real TEC 6.17.2 site as a user would: a venue created inside an event
 * create that a `kill -9` cut off was on the site, but its ledger entry had never been written.
 * The rerun found it by name and took it for the site's own ("linked existing venue …: its fields
 * were left as they are"), so later changes of the feed never reached it. The earlier run had
 * claimed its spelling in the ledger just before writing it: a venue so claimed is calsync's own.
 */
const FEED = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', 'BEGIN:VEVENT', 'UID:talk@test', 'DTSTAMP:20270101T000000Z',
  'DTSTART:20270601T180000Z', 'DURATION:PT1H', 'SUMMARY:Talk', 'LOCATION:Cut Hall\\, 1 Main Street', 'END:VEVENT',
  'BEGIN:VEVENT', 'UID:talk2@test', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270602T180000Z', 'DURATION:PT1H', 'SUMMARY:Talk 2',
  'LOCATION:Other Hall\\, 2 Side Street', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

describe('regression: a venue the killed run created was taken for the site\'s own on the rerun', () => {
  const suite = icsImportSuite(FEED);

  it('a venue whose spelling an earlier run claimed, found on the site without a ledger entry, is written as calsync\'s', async () => {
    expect((await suite.run()).counts.venues.created).toBe(2);
    // What the kill leaves: the venue on the site and its spelling claimed, its ledger entry never written.
    const key = ledgerKey({ site: suite.env.site.key, language: 'en', source: 'talks' }, 'venues', suite.ctx.prefix);
    const slugs = await suite.redis.hkeys(key);
    const cut = slugs.find((s) => s.startsWith('cut-hall'))!;
    expect(cut).toBeDefined();
    await suite.redis.hdel(key, cut);

    const r = await suite.run();
    expect(r.linked ?? []).toEqual([]);
    expect(r.counts.venues).toMatchObject({ updated: 1, unchanged: 1, failed: 0 });
    const entry = JSON.parse((await suite.redis.hget(key, cut))!) as { adopted?: boolean };
    expect(entry.adopted).toBeUndefined();
  });
});
