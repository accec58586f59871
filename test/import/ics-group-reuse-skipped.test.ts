import { describe, expect, it } from 'vitest';
import type { ReportJson } from '../../src/report/report.ts';
import { icsImportSuite } from '../support/ics-import.ts';

/**
 * Regression (group reuse recorded groups with a skipped event): a UID group was recorded after a clean run
 * even when one of its events was skipped by the writer (trashed on the site, or edited there under
 * --on-edit preserve), so the ledger still holds the event's old version. The next re-import reuses the
 * group and reports the event unchanged, where normalizing it reports it skipped again (and, were it
 * restored from the trash meanwhile, would update it). Found against a real TEC 6.17.2 site (a
 * re-import with --status draft after an event was trashed); reproduced here on the sandbox. A group
 * is now recorded only when every one of its events was written or found unchanged.
 */

const vevent = (i: number, title = `Talk ${i}`) => [
  'BEGIN:VEVENT', `UID:talk-${i}@example.org`, 'DTSTAMP:20261127T000000Z', `SUMMARY:${title}`, `DTSTART:202705${String(1 + i).padStart(2, '0')}T190000Z`,
  `DTEND:202705${String(1 + i).padStart(2, '0')}T200000Z`, 'CATEGORIES:Music', `LOCATION:Hall ${i % 3}`, 'END:VEVENT',
];
const feedOf = (titles: Record<number, string> = {}, stamp = '20261127T000000Z') =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: 6 }, (_, i) => vevent(i, titles[i])).flat(), 'END:VCALENDAR', '']
    .join('\r\n').replaceAll('DTSTAMP:20261127T000000Z', `DTSTAMP:${stamp}`);

describe('group reuse: a group whose event the writer skipped', () => {
  const suite = icsImportSuite(feedOf());
  const { run, reused } = suite;
  const events = () => suite.env.sandbox.dump('en').events as { id: number; slug: string; title: string; start_date: string; end_date: string; timezone: string; status: string }[];
  const itemOf = (r: ReportJson, uid: string) => r.items.find((i) => i.kind === 'events' && i.origin?.uid === uid);

  it('an event trashed on the site and skipped by a --status draft run is reported skipped again by the next run, as without reuse', async () => {
    await run();
    const victim = events().find((e) => e.title === 'Talk 2')!;
    await suite.env.client.events.delete(victim.id);
    suite.feed.set(feedOf({}, '20261127T010000Z'));
    const draft = await run({ status: 'draft' });
    expect(itemOf(draft, 'talk-2@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/deleted on the site/) });
    suite.feed.set(feedOf({}, '20261127T020000Z'));
    const again = await run({ status: 'draft' });
    expect(reused().at(-1)).toBe(5);
    expect(itemOf(again, 'talk-2@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/deleted on the site/) });
  });

  it('an event edited on the site and skipped under --on-edit preserve is reported skipped again by the next run, as without reuse', async () => {
    await run();
    const victim = events().find((e) => e.title === 'Talk 3')!;
    await new Promise((r) => setTimeout(r, 1100)); // modified_utc has one-second resolution
    await suite.env.client.events.update(victim.id, { title: 'Talk 3 (edited on the site)', start_date: victim.start_date, end_date: victim.end_date, timezone: victim.timezone });
    suite.feed.set(feedOf({ 3: 'Talk 3 v2' }, '20261127T010000Z'));
    const first = await run({ onEdit: 'preserve' });
    expect(itemOf(first, 'talk-3@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/edited on the site/) });
    suite.feed.set(feedOf({ 3: 'Talk 3 v2' }, '20261127T020000Z'));
    const again = await run({ onEdit: 'preserve' });
    expect(reused().at(-1)).toBe(5);
    expect(itemOf(again, 'talk-3@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/edited on the site/) });
  });
});
