import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ledgerKey } from '../../src/write/ledger.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

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
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let ctx: RunContext;
  let logs: string;
  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(FEED);
  });
  beforeEach(async () => {
    await env?.close();
    env = await testSite();
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
  /** Groups reused by each run so far, from its log line. */
  const reused = () => [...logs.matchAll(/"reused":(\d+)/g)].map((m) => Number(m[1]));
  const events = () => env.sandbox.dump('en').events as { slug: string; categories: { name: string; id: number }[] }[];

  it('an unchanged re-import reuses every group and writes nothing', async () => {
    expect((await runIcsImport(params(), ctx)).counts.events.created).toBe(12);
    const again = await runIcsImport(params(), ctx);
    expect(again.counts.events).toMatchObject({ unchanged: 12, created: 0, updated: 0 });
    expect(reused()).toEqual([0, 12]);
  });

  it('a term deleted on the site: the groups carrying it are normalized, the term made again and their events updated', async () => {
    await runIcsImport(params(), ctx);
    const music = events().flatMap((e) => e.categories).find((c) => c.name === 'Music')!;
    await env.client.categories.delete(music.id);
    const again = await runIcsImport(params(), ctx);
    expect(reused()).toEqual([0, 6]);
    expect(again.counts.categories.created).toBe(1);
    expect(again.counts.events).toMatchObject({ updated: 6, unchanged: 6 });
    const now = events().flatMap((e) => e.categories).filter((c) => c.name === 'Music');
    expect(now).toHaveLength(6);
    expect(now.every((c) => c.id !== music.id)).toBe(true);
  });

  it("the events' ledger wiped (records, venues and organizers kept): nothing is reused and no event is created twice", async () => {
    await runIcsImport(params(), ctx);
    expect(await redis.del(ledgerKey({ site: env.site.key, language: 'en', source: 'talks' }, 'events', ctx.prefix))).toBe(1);
    const again = await runIcsImport(params(), ctx);
    expect(reused()).toEqual([0, 0]);
    expect(again.counts.events.created).toBe(0);
    expect(events()).toHaveLength(12);
  });

  it('after a run that failed an event, the next run normalizes every group; the one after reuses them again', async () => {
    await runIcsImport(params(), ctx);
    // Talk 3 ends before it starts: a failed item, so the run is not clean.
    feed.set(FEED.replace('DTEND:20270504T200000Z', 'DTEND:20270503T200000Z'));
    const failed = await runIcsImport(params(), ctx);
    expect(failed.counts.events.failed).toBe(1);
    feed.set(FEED);
    await runIcsImport(params(), ctx);
    await runIcsImport(params(), ctx);
    expect(reused()).toEqual([0, 11, 0, 12]);
  });

  it('a dry run neither uses records nor leaves any', async () => {
    await runIcsImport(params({ dryRun: true }), ctx);
    expect(await redis.keys(`${ctx.prefix}:state:groups:*`)).toEqual([]);
    await runIcsImport(params(), ctx);
    const dry = await runIcsImport(params({ dryRun: true }), ctx);
    expect(dry.counts.events.unchanged).toBe(12);
    expect(reused()).toEqual([0]);
  });
});
