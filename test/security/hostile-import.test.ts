import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { runSiteSync } from '../../src/runs/sync-site.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { BYPASSES, OWASP, inertProblems } from './vectors.ts';

/**
 * The attacks of issue 14 part 3 end to end: a hostile feed, CSV or source site is imported into
 * a sandbox site (which, like WordPress for an administrator, stores post HTML as sent) and what
 * the site stored is read back.
 */

const ALL = [...BYPASSES, ...OWASP];
const icsText = (s: string) => s.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n').replace(/;/g, '\\;').replace(/,/g, '\\,');
const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;
const WINDOW = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-31T23:59:59Z') };
const METADATA = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/';
const PRIVATE = 'http://10.0.0.5/admin/poster.png';
const PUBLIC = 'http://93.184.215.14/poster.png'; // a public address literal: no DNS in tests

interface Stored {
  title: string;
  description: string;
  excerpt?: string;
  image?: { url: string } | false;
  venue?: { venue: string; description?: string } | unknown[];
  organizer?: { organizer: string }[];
  categories?: { name: string }[];
}

function calendar(events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync tests//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
function vevent(i: number, lines: string[]): string {
  return ['BEGIN:VEVENT', `UID:hostile-${i}@test`, 'DTSTAMP:20250101T000000Z', `DTSTART:202503${String((i % 27) + 1).padStart(2, '0')}T100000Z`, 'DURATION:PT1H', ...lines, 'END:VEVENT'].join('\r\n');
}

/** Every HTML field and every name of a stored event, as the site would render them. */
function expectInert(e: Stored): void {
  const venue = Array.isArray(e.venue) ? undefined : (e.venue as { venue: string; description?: string } | undefined);
  for (const html of [e.description, e.excerpt ?? '', venue?.description ?? '']) expect(inertProblems(html), html).toEqual([]);
  for (const text of [e.title, venue?.venue ?? '', ...(e.organizer ?? []).map((o) => o.organizer), ...(e.categories ?? []).map((c) => c.name)]) {
    expect(text, text).not.toMatch(/<[a-z!/?]/i);
  }
}

type Env = Awaited<ReturnType<typeof testSite>>;

/** What the ICS and the CSV import of the hostile vectors share: one site, English, published, terms created. */
function importOptions(env: Env, sourceKey: string) {
  return { site: env.site, sourceKey, lang: 'en', defaultTimezone: 'UTC', status: 'publish', createTerms: true, dryRun: false } as const;
}

/** Every vector imported (none failed), every stored field inert, and only the public image URL kept. */
function expectAllStoredInert(env: Env, report: { counts: { events: { failed: number } } }): void {
  expect(report.counts.events.failed).toBe(0);
  const stored = env.sandbox.dump('en').events as Stored[];
  expect(stored).toHaveLength(ALL.length);
  for (const e of stored) expectInert(e);
  const images = stored.map((e) => (e.image ? e.image.url : undefined));
  expect(images.filter((u) => u === METADATA || u === PRIVATE)).toEqual([]);
  expect(images.filter((u) => u === PUBLIC)).toHaveLength(ALL.length - 2);
}

describe('regression: hostile feeds, CSV files and source sites stored XSS and SSRF on the site (issue 14)', () => {
  let redis: Redis;
  const out = mkdtempSync(path.join(tmpdir(), 'calsync-hostile-'));
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('ICS: every vector in X-ALT-DESC, DESCRIPTION and SUMMARY/LOCATION/ORGANIZER/CATEGORIES is stored inert; inward image URLs are dropped', async () => {
    const env = await testSite();
    const events = ALL.map(([, h], i) =>
      vevent(i, [
        `SUMMARY:<script>alert(${i})</script>Event ${i} ${icsText(h)}`,
        i % 2 ? `X-ALT-DESC;FMTTYPE=text/html:<p>x</p>${icsText(h)}` : `DESCRIPTION:<p>x</p>${icsText(h)}`,
        `LOCATION:<img src=x onerror=alert(${i})>Hall ${i}\\, 1 Main St`,
        `ORGANIZER;CN="<b onmouseover=alert(1)>Org ${i}</b>":mailto:org${i}@example.org`,
        `CATEGORIES:<i onclick=alert(1)>Music</i>`,
        `ATTACH;FMTTYPE=image/png:${i === 0 ? METADATA : i === 1 ? PRIVATE : PUBLIC}`,
      ]),
    );
    const feed = await feedServer(calendar(events));
    try {
      const report = await runIcsImport(
        {
          ...importOptions(env, 'hostile'), location: feed.url, window: WINDOW, retire: 'keep', onEdit: 'overwrite', categoriesAs: 'categories',
          allow: [new URL(feed.url).host],
        },
        { redis, prefix: testPrefix() },
      );
      expectAllStoredInert(env, report);
      expect(report.warnings.join('\n')).toContain('169.254.169.254 is a link-local address');
      expect(report.warnings.join('\n')).toContain('10.0.0.5 is a private address');
    } finally {
      await feed.close();
      await env.close();
    }
  });

  it('CSV: every vector in description and excerpt, markup in titles and names, inward image URLs: stored inert, images dropped', async () => {
    const env = await testSite();
    const header = 'Event Name,Event Start Date,Event Description,Event Excerpt,Event Venue Name,Event Organizer Name,Event Category,Event Featured Image';
    const rows = ALL.map(([, h], i) =>
      [`<script>alert(1)</script>CSV ${i}`, '2025-05-01', `<p>x</p>${h}`, h, `<img src=x onerror=alert(1)>Hall ${i}`, `<b onclick=x()>Org ${i}</b>`, '<u>Music</u>', i === 0 ? METADATA : i === 1 ? PRIVATE : PUBLIC]
        .map(csvCell)
        .join(','),
    );
    const file = path.join(out, 'hostile.csv');
    writeFileSync(file, [header, ...rows].join('\n'));
    try {
      const report = await runCsvImport(
        { ...importOptions(env, 'hostile-csv'), location: file, kind: 'events', chunkSize: 20, allowFiles: true },
        { redis, prefix: testPrefix() },
      );
      expectAllStoredInert(env, report);
      expect(report.warnings.some((w) => w.includes('169.254.169.254'))).toBe(true);
    } finally {
      await env.close();
    }
  });

  it('site to site: a hostile source site (its admin stores raw HTML) is copied inert', async () => {
    const source = await testSite();
    const target = await testSite();
    try {
      for (const [i, [, h]] of ALL.slice(0, 20).entries()) {
        await source.client.events.create({
          title: `<script>alert(1)</script>Copied ${i}`,
          description: `<p>x</p>${h}`,
          excerpt: h,
          start_date: '2025-06-01 10:00:00',
          end_date: '2025-06-01 11:00:00',
          timezone: 'UTC',
          status: 'publish',
          ...(i === 0 ? { image: METADATA } : {}),
        } as never);
      }
      const report = await runSiteSync(
        {
          from: { ...source.site, key: 'src', name: 'source' }, to: target.site, lang: 'en', window: WINDOW, retire: 'keep', onEdit: 'overwrite',
          dryRun: false, settledMs: 0,
        },
        { redis, prefix: testPrefix() },
      );
      expect(report.counts.events).toMatchObject({ created: 20, failed: 0 });
      const stored = target.sandbox.dump('en').events as Stored[];
      expect(stored).toHaveLength(20);
      for (const e of stored) expectInert(e);
      expect(stored.some((e) => e.image && e.image.url === METADATA)).toBe(false);
    } finally {
      await source.close();
      await target.close();
    }
  });
});
