import { describe, expect, it } from 'vitest';
import { normalizeIcs } from '../../src/sources/ics/index.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';

const window = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-06-01T00:00:00Z') };

describe('generateIcsFeed', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = generateIcsFeed({ events: 200, seed: 7 });
    expect(generateIcsFeed({ events: 200, seed: 7 })).toBe(a);
    expect(generateIcsFeed({ events: 200, seed: 8 })).not.toBe(a);
  });

  it('produces a valid feed with series, overrides, EXDATEs, zones, venues and organizers', () => {
    const text = generateIcsFeed({ events: 500, seed: 3, recurringShare: 0.3, zones: ['Europe/Berlin', 'America/New_York'] });
    expect(text.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    const r = normalizeIcs(new TextEncoder().encode(text), { sourceKey: 'gen', sourceName: 'gen.ics', window });
    expect(r.summary.vevents).toBe(500);
    expect(r.summary.failures).toBe(0);
    expect(r.summary.series).toBeGreaterThan(20);
    expect(r.summary.accounting.drafted).toBe(500);
    const drafts = r.items.flatMap((i) => (i.ok ? [i.draft] : []));
    expect(new Set(drafts.filter((d) => !d.all_day).map((d) => d.timezone))).toEqual(new Set(['Europe/Berlin', 'America/New_York']));
    // All-day events are shown in the calendar zone (X-WR-TIMEZONE = the first zone).
    expect(drafts.filter((d) => d.all_day).every((d) => d.timezone === 'Europe/Berlin')).toBe(true);
    expect(drafts.some((d) => d.all_day)).toBe(true);
    expect(drafts.some((d) => d.title.endsWith('(verlegt)'))).toBe(true);
    expect(drafts.every((d) => d.venue)).toBe(true);
    expect(drafts.some((d) => d.organizers.length === 1 && d.categories.length >= 1 && d.venue?.geo)).toBe(true);
    expect(new Set(drafts.map((d) => d.identity)).size).toBe(drafts.length);
  });

  it('normalizes 10k generated events quickly (the 20 MB / 60k-event benchmark lives in the report)', () => {
    const bytes = new TextEncoder().encode(generateIcsFeed({ events: 10_000, seed: 11, recurringShare: 0.1 }));
    const t0 = performance.now();
    const r = normalizeIcs(bytes, { sourceKey: 'gen', sourceName: 'gen.ics', window });
    const ms = performance.now() - t0;
    expect(r.summary.vevents).toBe(10_000);
    expect(r.summary.accounting.drafted).toBe(10_000);
    // Generous bound for shared CI machines; locally this is ~1-3 s.
    expect(ms).toBeLessThan(20_000);
  });
});
