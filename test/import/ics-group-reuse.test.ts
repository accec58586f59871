import { copyFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSite } from '../../src/config/sites.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { capturedLog, reusedGroups } from '../support/log.ts';
import { PASSWORD, USER, feedServer } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { corpusBytes } from '../ics/helpers.ts';

/**
 * Group reuse end to end, against the sandbox and Redis: after a first import, the same re-import
 * runs twice from the same starting point (the site's saved data, a copy of every Redis key), once as
 * it does (reusing the groups recorded) and once with the records removed (normalizing every group).
 * The site, the ledger and the report must come out the same.
 */

const DAY = 86_400_000;
const WINDOW = { from: new Date('2026-06-01T00:00:00Z'), to: new Date('2027-06-01T00:00:00Z') };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** What a run leaves, without what differs between any two runs (times, run ids). */
async function outcome(sb: Sandbox, redis: Redis, prefix: string, report: ReportJson) {
  // Creation and modification times differ between any two runs, nested records' (an event's venue) included.
  const strip = (r: unknown): unknown =>
    Array.isArray(r) ? r.map(strip) : r && typeof r === 'object' ? Object.fromEntries(Object.entries(r).filter(([k]) => !/^(date|modified)(_utc)?$|_details$/.test(k)).map(([k, v]) => [k, strip(v)])) : r;
  const dump = sb.dump('en');
  const site = Object.fromEntries(Object.entries(dump).map(([kind, list]) => [kind, (list as unknown[]).map(strip)]));
  const ledger: Record<string, unknown> = {};
  for (const key of (await redis.keys(`${prefix}:ledger:*`)).sort()) {
    if ((await redis.type(key)) !== 'hash') continue;
    const h = await redis.hgetall(key);
    ledger[key.slice(prefix.length)] = Object.fromEntries(Object.entries(h).sort().map(([k, v]) => [k, v.startsWith('{') ? { ...(JSON.parse(v) as object), at: undefined, modified: undefined } : v]));
  }
  const { run: _run, ...rest } = report;
  const items = [...(rest.items ?? [])].map((i) => JSON.stringify(i)).sort();
  return { site, ledger, report: { ...rest, items } };
}

describe('group reuse end to end: a re-import reusing groups leaves site, ledger and report as one normalizing every group', () => {
  let redis: Redis;
  beforeAll(() => void (redis = testRedis()));
  afterAll(() => redis.disconnect());

  async function differential(first: string, later: string, laterWindow = WINDOW, firstWindow = WINDOW): Promise<number> {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-reuse-'));
    const data = path.join(dir, 'site.json');
    const port = await freePort();
    const start = (file: string) => startSandbox({ port, user: USER, password: PASSWORD, dataFile: file });
    const feed = await feedServer(first);
    const [p, q] = [testPrefix(), testPrefix()];
    const { log, text } = capturedLog();
    try {
      let sb = await start(data);
      const site = resolveSite(sb.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } });
      const params: IcsImportParams = {
        location: feed.url, site: { ...site, concurrency: 1 }, sourceKey: 'reuse', lang: 'en', window: firstWindow, retire: 'trash', onEdit: 'overwrite', defaultTimezone: 'Europe/Berlin',
        status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
      };
      const run1 = await runIcsImport(params, { redis, prefix: p });
      expect(run1.counts.events.created).toBeGreaterThan(0);
      await sb.close();
      copyFileSync(data, `${data}.b`);
      for (const key of await redis.keys(`${p}:*`)) await redis.copy(key, `${q}${key.slice(p.length)}`);
      expect(await redis.del(`${q}:state:groups:${site.key}:en:reuse`)).toBe(1);

      feed.set(later);
      sb = await start(data);
      const a = await runIcsImport({ ...params, window: laterWindow }, { redis, prefix: p, log });
      const withReuse = await outcome(sb, redis, p, a);
      await sb.close();
      sb = await start(`${data}.b`);
      const b = await runIcsImport({ ...params, window: laterWindow }, { redis, prefix: q });
      const without = await outcome(sb, redis, q, b);
      await sb.close();
      expect(withReuse.report).toEqual(without.report);
      expect(withReuse.site).toEqual(without.site);
      // The records themselves differ (one arm had none to keep): the rest of the ledger may not.
      expect(withReuse.ledger).toEqual(without.ledger);
      return reusedGroups(text())[0] ?? 0;
    } finally {
      await feed.close();
    }
  }

  const feed = generateIcsFeed({ events: 150, seed: 11, recurringShare: 0.2, start: new Date(Date.UTC(2026, 5, 8)) });

  it('a generated feed: 1 in 20 VEVENTs edited, one removed, one added, every DTSTAMP rewritten', async () => {
    let n = 0;
    const later = feed
      .replace(/SUMMARY:([^\r\n]*)/g, (all, s: string) => (++n % 20 === 0 ? `SUMMARY:${s} (edited)` : all))
      .replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:20261127T120000Z')
      .replace(/BEGIN:VEVENT[\s\S]*?END:VEVENT\r?\n/, '')
      .replace('END:VCALENDAR', 'BEGIN:VEVENT\r\nUID:added@reuse\r\nDTSTART:20261001T100000Z\r\nDTEND:20261001T110000Z\r\nSUMMARY:Added\r\nEND:VEVENT\r\nEND:VCALENDAR');
    expect(await differential(feed, later)).toBeGreaterThan(50);
  });

  it('the window moved forward by a day, then by 40 days (occurrences leave and enter it)', async () => {
    const move = (ms: number) => ({ from: new Date(WINDOW.from.getTime() + ms), to: new Date(WINDOW.to.getTime() + ms) });
    expect(await differential(feed, feed, move(DAY))).toBeGreaterThan(50);
    expect(await differential(feed, feed, move(40 * DAY))).toBeGreaterThan(10);
  });

  it('events without a UID (their group is keyed by their content, their origin has no UID) keep no UID when reused', async () => {
    const ev = (uid: string, day: number, title: string) => `BEGIN:VEVENT\r\n${uid ? `UID:${uid}\r\n` : ''}DTSTAMP:20260101T000000Z\r\nDTSTART:202609${String(day).padStart(2, '0')}T100000Z\r\nDTEND:202609${String(day).padStart(2, '0')}T110000Z\r\nSUMMARY:${title}\r\nEND:VEVENT\r\n`;
    const text = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n${ev('shared@reuse', 1, 'First')}${ev('shared@reuse', 2, 'Second')}${ev('', 3, 'No UID')}${ev('', 4, 'No UID either')}${ev('plain@reuse', 5, 'Plain')}END:VCALENDAR\r\n`;
    const later = text.replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:20261127T120000Z');
    // The shared UID's group warns (its second event gets #2), so it is never recorded: the other three are reused.
    expect(await differential(text, later)).toBe(3);
  });

  it('a corpus feed with overrides, exceptions and RANGE=THISANDFUTURE, window moved by a day', async () => {
    const text = new TextDecoder().decode(corpusBytes('google-madrid-monthly-first-thursday-two-overrides.ics'));
    const wide = { from: new Date('2000-01-01T00:00:00Z'), to: new Date('2030-01-01T00:00:00Z') };
    const moved = { from: new Date(wide.from.getTime() + DAY), to: new Date(wide.to.getTime() + DAY) };
    expect(await differential(text, text, moved, wide)).toBeGreaterThan(0);
  });
});
