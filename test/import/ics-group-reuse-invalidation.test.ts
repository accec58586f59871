import { describe, expect, it } from 'vitest';
import { ledgerKey } from '../../src/write/ledger.ts';
import { icsImportSuite } from '../support/ics-import.ts';

/**
 * What must make a re-import normalize a UID group again instead of reusing its record, checked
 * end to end: the site lost a term the group's events carry, the ledger was wiped, the last run
 * failed, and dry runs (which neither use nor leave records).
 */

const vevent = (i: number) => [
  'BEGIN:VEVENT', `UID:talk-${i}@example.org`, `DTSTAMP:20261127T0${i % 10}0000Z`, `SUMMARY:Talk ${i}`, `DTSTART:202705${String(1 + (i % 28)).padStart(2, '0')}T190000Z`,
  'DTEND:' + `202705${String(1 + (i % 28)).padStart(2, '0')}T200000Z`, `CATEGORIES:${i % 2 ? 'Music' : 'Theatre'}`, `LOCATION:Hall ${i % 3}`, 'END:VEVENT',
];
const FEED = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: 12 }, (_, i) => vevent(i)).flat(), 'END:VCALENDAR', ''].join('\r\n');

describe('group reuse: what makes a group normalize again', () => {
  const suite = icsImportSuite(FEED);
  const { run, reused } = suite;
  const events = () => suite.env.sandbox.dump('en').events as { slug: string; categories: { name: string; id: number }[] }[];

  it('an unchanged re-import reuses every group and writes nothing', async () => {
    expect((await run()).counts.events.created).toBe(12);
    const again = await run();
    expect(again.counts.events).toMatchObject({ unchanged: 12, created: 0, updated: 0 });
    expect(reused()).toEqual([0, 12]);
  });

  it('a term deleted on the site: the groups carrying it are normalized, the term made again and their events updated', async () => {
    await run();
    const music = events().flatMap((e) => e.categories).find((c) => c.name === 'Music')!;
    await suite.env.client.categories.delete(music.id);
    const again = await run();
    expect(reused()).toEqual([0, 6]);
    expect(again.counts.categories.created).toBe(1);
    expect(again.counts.events).toMatchObject({ updated: 6, unchanged: 6 });
    const now = events().flatMap((e) => e.categories).filter((c) => c.name === 'Music');
    expect(now).toHaveLength(6);
    expect(now.every((c) => c.id !== music.id)).toBe(true);
  });

  it("the events' ledger wiped (records, venues and organizers kept): nothing is reused and no event is created twice", async () => {
    await run();
    expect(await suite.redis.del(ledgerKey({ site: suite.env.site.key, language: 'en', source: 'talks' }, 'events', suite.ctx.prefix))).toBe(1);
    const again = await run();
    expect(reused()).toEqual([0, 0]);
    expect(again.counts.events.created).toBe(0);
    expect(events()).toHaveLength(12);
  });

  it('after a run that failed an event, the next run normalizes every group; the one after reuses them again', async () => {
    await run();
    // Talk 3 ends before it starts: a failed item, so the run is not clean.
    suite.feed.set(FEED.replace('DTEND:20270504T200000Z', 'DTEND:20270503T200000Z'));
    const failed = await run();
    expect(failed.counts.events.failed).toBe(1);
    suite.feed.set(FEED);
    await run();
    await run();
    expect(reused()).toEqual([0, 11, 0, 12]);
  });

  it('a dry run neither uses records nor leaves any', async () => {
    await run({ dryRun: true });
    expect(await suite.redis.keys(`${suite.ctx.prefix}:state:groups:*`)).toEqual([]);
    await run();
    const dry = await run({ dryRun: true });
    expect(dry.counts.events.unchanged).toBe(12);
    expect(reused()).toEqual([0]);
  });
});
