import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

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
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let ctx: RunContext;
  let logs: string;
  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(feedOf());
  });
  beforeEach(async () => {
    await env?.close();
    env = await testSite();
    feed.set(feedOf());
    logs = '';
    ctx = { redis, prefix: testPrefix(), log: pino({ level: 'info' }, new Writable({ write(chunk, _e, cb) { logs += chunk; cb(); } })) };
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });

  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: feed.url, site: env.site, sourceKey: 'talks', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0, ...over,
  });
  const reused = () => [...logs.matchAll(/"reused":(\d+)/g)].map((m) => Number(m[1]));
  const events = () => env.sandbox.dump('en').events as { id: number; slug: string; title: string; start_date: string; end_date: string; timezone: string; status: string }[];
  const itemOf = (r: ReportJson, uid: string) => r.items.find((i) => i.kind === 'events' && i.origin?.uid === uid);

  it('an event trashed on the site and skipped by a --status draft run is reported skipped again by the next run, as without reuse', async () => {
    await runIcsImport(params(), ctx);
    const victim = events().find((e) => e.title === 'Talk 2')!;
    await env.client.events.delete(victim.id);
    feed.set(feedOf({}, '20261127T010000Z'));
    const draft = await runIcsImport(params({ status: 'draft' }), ctx);
    expect(itemOf(draft, 'talk-2@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/deleted on the site/) });
    feed.set(feedOf({}, '20261127T020000Z'));
    const again = await runIcsImport(params({ status: 'draft' }), ctx);
    expect(reused().at(-1)).toBe(5);
    expect(itemOf(again, 'talk-2@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/deleted on the site/) });
  });

  it('an event edited on the site and skipped under --on-edit preserve is reported skipped again by the next run, as without reuse', async () => {
    await runIcsImport(params(), ctx);
    const victim = events().find((e) => e.title === 'Talk 3')!;
    await new Promise((r) => setTimeout(r, 1100)); // modified_utc has one-second resolution
    await env.client.events.update(victim.id, { title: 'Talk 3 (edited on the site)', start_date: victim.start_date, end_date: victim.end_date, timezone: victim.timezone });
    feed.set(feedOf({ 3: 'Talk 3 v2' }, '20261127T010000Z'));
    const first = await runIcsImport(params({ onEdit: 'preserve' }), ctx);
    expect(itemOf(first, 'talk-3@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/edited on the site/) });
    feed.set(feedOf({ 3: 'Talk 3 v2' }, '20261127T020000Z'));
    const again = await runIcsImport(params({ onEdit: 'preserve' }), ctx);
    expect(reused().at(-1)).toBe(5);
    expect(itemOf(again, 'talk-3@example.org')).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/edited on the site/) });
  });
});
