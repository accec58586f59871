import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/**
 * Found importing corpus feeds into a real site: a feed whose events all lie before the window
 * (the default window starts today) and a feed of to-dos only both printed a report without an
 * events line and exited 0, with nothing saying why no event arrived.
 */

const calendar = (...lines: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const FEEDS = {
  past: calendar('BEGIN:VEVENT', 'UID:old-1@example.org', 'SUMMARY:Old talk', 'DTSTART:19970902T090000Z', 'DTEND:19970902T100000Z', 'DTSTAMP:19970901T000000Z', 'END:VEVENT'),
  todos: calendar('BEGIN:VTODO', 'UID:todo-1@example.org', 'SUMMARY:Buy milk', 'DTSTAMP:20260101T000000Z', 'END:VTODO'),
  current: calendar('BEGIN:VEVENT', 'UID:new-1@example.org', 'SUMMARY:New talk', 'DTSTART:20310902T090000Z', 'DTEND:20310902T100000Z', 'DTSTAMP:20260101T000000Z', 'END:VEVENT'),
};

describe('regression: a feed that gave no event in the window said nothing about why', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let dir: string;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-empty-feed-'));
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });
  const run = (name: keyof typeof FEEDS) => {
    const file = path.join(dir, `${name}.ics`);
    writeFileSync(file, FEEDS[name]);
    const params: IcsImportParams = {
      location: file, site: env.site, sourceKey: name, lang: 'en', window: { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    };
    return runIcsImport(params, { redis, prefix: testPrefix() });
  };

  it('every VEVENT outside the window: the warning names the window and how to widen it', async () => {
    const r = await run('past');
    expect(r.counts.events.read).toBe(0);
    expect(r.warnings).toEqual(["none of the feed's 1 VEVENT(s) has an occurrence in the window 2031-01-01..2031-12-31: nothing imported (widen it with --window, --past-days or --horizon-days)"]);
  });

  it('no VEVENT at all: the warning says so', async () => {
    const r = await run('todos');
    expect(r.warnings).toEqual(['the feed holds no VEVENT (no event to import; to-dos, journals and free/busy are not imported)']);
  });

  it('a feed with events in the window gets no such warning', async () => {
    const r = await run('current');
    expect(r.counts.events.created).toBe(1);
    expect(r.warnings).toEqual([]);
  });
});
