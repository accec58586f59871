import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { TERM_LIMITS } from '../../src/write/terms.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/**
 * Regression (attacker review): each CATEGORIES value of a VEVENT became a term the run created,
 * one request each, with no bound: one VEVENT with 9,000 categories in a 90 KB feed sent 9,007
 * requests. Terms are now bounded per event and per run (src/write/terms.ts, TERM_LIMITS).
 */

const calendar = (...lines: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (uid: string, categories: string[]) => [
  'BEGIN:VEVENT', `UID:${uid}@example.org`, `SUMMARY:Talk ${uid}`, 'DTSTART:20310902T090000Z', 'DTEND:20310902T100000Z', 'DTSTAMP:20260101T000000Z',
  `CATEGORIES:${categories.join(',')}`, 'END:VEVENT',
];
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('regression: term amplification (one VEVENT with N CATEGORIES created N terms)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let dir: string;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-terms-'));
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });
  const run = (name: string, ics: string, over: Partial<IcsImportParams> = {}) => {
    const file = path.join(dir, `${name}.ics`);
    writeFileSync(file, ics);
    const params: IcsImportParams = {
      location: file, site: env.site, sourceKey: name, lang: 'en', window: { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true, ...over,
    };
    return runIcsImport(params, { redis, prefix: testPrefix() });
  };

  it('one event naming 3,000 categories (and one absurdly long one) creates the first 50 and says what it left out', async () => {
    const ics = calendar(...vevent('many', ['x'.repeat(300), ...names('amp', 3000)]));
    const r = await run('many', ics);
    expect(r.counts.events.created).toBe(1);
    expect(r.counts.categories.created).toBe(TERM_LIMITS.perEvent);
    // Before: 3,001 term creates. Now the event, 50 terms and the run's listings.
    expect(r.requests!.total).toBeLessThan(100);
    const event = r.items.find((i) => i.kind === 'events');
    expect(event?.reason).toBe('written without categories: 2950 beyond the first 50, 1 longer than 200 characters (the limits per event)');
    // What the CLI prints: a warning naming the event.
    expect(r.warnings).toEqual([`${path.join(dir, 'many.ics')}:4: written without categories: 2950 beyond the first 50, 1 longer than 200 characters (the limits per event)`]);
  });

  it(`a run creates at most ${TERM_LIMITS.newPerRun} new terms; the rest are failed items naming the limit, their events still written`, { timeout: 120_000 }, async () => {
    const events = Array.from({ length: 21 }, (_, e) => vevent(`run-${e}`, names(`run${e}-`, TERM_LIMITS.perEvent)));
    const r = await run('per-run', calendar(...events.flat()));
    expect(r.counts.events.created).toBe(21);
    expect(r.counts.categories.created).toBe(TERM_LIMITS.newPerRun);
    expect(r.counts.categories.failed).toBe(21 * TERM_LIMITS.perEvent - TERM_LIMITS.newPerRun);
    const failed = r.items.filter((i) => i.kind === 'categories' && i.outcome === 'failed');
    expect(failed[0]?.reason).toMatch(/^not created: this run already created 1000 categories and tags, the most one run may; events are written without "run\d+-\d+", and the next run creates it$/);
    expect(r.requests!.total).toBeLessThan(TERM_LIMITS.newPerRun + 100);
    // The next run creates the rest and links them.
    const again = await run('per-run', calendar(...events.flat()));
    expect(again.counts.categories.created).toBe(21 * TERM_LIMITS.perEvent - TERM_LIMITS.newPerRun);
    expect(again.counts.categories.failed).toBe(0);
  });

  it('a normal feed keeps every term: the corpus feed with escaped commas in its categories', async () => {
    const corpus = readFileSync(path.resolve(import.meta.dirname, '../fixtures/third-party/corpus/ics/categories-escaped-commas.ics'), 'utf8');
    const r = await run('corpus-commas', corpus, { window: { from: new Date('2014-01-01T00:00:00Z'), to: new Date('2014-12-31T00:00:00Z') } });
    expect(r.counts.events.created).toBe(1);
    expect(r.counts.categories.created).toBe(3);
    expect(r.items.find((i) => i.kind === 'events')?.reason).toBeUndefined();
  });
});
