import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/** Issue 13 item 1: the "unchanged, skip" shortcut only after a clean run with the same options. */

const feed = (n: number) =>
  [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN',
    ...Array.from({ length: n }, (_, i) => [
      'BEGIN:VEVENT', `UID:rerun-${i}@example.org`, `SUMMARY:Rerun ${i}`, `DTSTART:202703${String(10 + i).padStart(2, '0')}T190000Z`,
      `DTEND:202703${String(10 + i).padStart(2, '0')}T200000Z`, 'DTSTAMP:20260101T000000Z', 'END:VEVENT',
    ]).flat(),
    'END:VCALENDAR', '',
  ].join('\r\n');

describe('issue 13: a rerun never lies', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let file: string;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-rerun-')), 'talks.ics');
    writeFileSync(file, feed(5));
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });

  const YEAR_2027 = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') };
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: file, site: env.site, sourceKey: 'talks', lang: 'en', window: YEAR_2027, retire: 'keep', onEdit: 'overwrite',
    status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true, ...over,
  });
  const count = (source: string) => (env.sandbox.dump('en').events as { slug: string }[]).filter((e) => e.slug.startsWith(`${source}-`)).length;

  it('regression: a run whose every item failed made the corrected rerun a silent no-op ("not modified since the last run")', async () => {
    const ctx: RunContext = { redis, prefix: testPrefix() };
    // The site accepts the preflight, then fails every write (no retries): every item fails, exit 2.
    const failing = { ...env.site, connection: { ...env.site.connection, retry: { maxRetries: 0 } } };
    const first = await runIcsImport(params({ site: failing }), {
      ...ctx,
      onProgress: (p) => {
        if (p.phase === 'fetch') env.sandbox.setFaults({ errorRate: 1 });
      },
    });
    env.sandbox.setFaults({ errorRate: 0 });
    expect(first.counts.events.failed).toBe(5);
    expect(count('talks')).toBe(0);

    const again = await runIcsImport(params(), ctx);
    expect(again.notModified).toBeUndefined();
    expect(again.counts.events.created).toBe(5);
    expect(count('talks')).toBe(5);

    // Only now, after a clean run with the same options, is the unchanged file skipped, and said so.
    const third = await runIcsImport(params(), ctx);
    expect(third.notModified).toBe(true);
    expect(third.unchangedReason).toBe('file unchanged since the last run');
  });

  it('regression: --status draft then --status publish was a silent no-op', async () => {
    const ctx: RunContext = { redis, prefix: testPrefix() };
    await runIcsImport(params({ sourceKey: 'status', status: 'draft' }), ctx);
    const publish = await runIcsImport(params({ sourceKey: 'status', status: 'publish' }), ctx);
    expect(publish.notModified).toBeUndefined();
    expect(publish.counts.events.updated).toBe(5);
    const statuses = (env.sandbox.dump('en').events as { slug: string; status: string }[]).filter((e) => e.slug.startsWith('status-')).map((e) => e.status);
    expect(statuses).toEqual(Array(5).fill('publish'));
  });

  it('regression: a window holding 0 events, then another --window, was a silent no-op', async () => {
    const ctx: RunContext = { redis, prefix: testPrefix() };
    const empty = await runIcsImport(params({ sourceKey: 'win', window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-12-31T00:00:00Z') } }), ctx);
    expect(empty.counts.events.read).toBe(0);
    const right = await runIcsImport(params({ sourceKey: 'win' }), ctx);
    expect(right.notModified).toBeUndefined();
    expect(right.counts.events.created).toBe(5);
  });

  it('regression: --horizon-days 30 then --horizon-days 365 was a silent no-op', async () => {
    const ctx: RunContext = { redis, prefix: testPrefix() };
    const now = new Date('2026-12-01T00:00:00Z');
    const horizon = (days: number) => ({ from: now, to: new Date(now.getTime() + days * 86_400_000) });
    expect((await runIcsImport(params({ sourceKey: 'hz', window: horizon(30) }), ctx)).counts.events.read).toBe(0);
    const longer = await runIcsImport(params({ sourceKey: 'hz', window: horizon(365) }), ctx);
    expect(longer.notModified).toBeUndefined();
    expect(longer.counts.events.created).toBe(5);
  });
});
