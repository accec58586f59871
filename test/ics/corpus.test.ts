import { describe, expect, it } from 'vitest';
import { EventDraft } from '../../src/model/draft.ts';
import { corpusBytes, corpusFiles, runCorpus, type Run } from './helpers.ts';
import { decodeIcs, normalizeIcs } from '../../src/sources/ics/index.ts';

/** VEVENTs counted independently of the parser: BEGIN:VEVENT lines after plain unfolding. */
function countVevents(file: string): number {
  const text = decodeIcs(corpusBytes(file)).text.replace(/\r?\n[ \t]/g, '');
  return (text.match(/^BEGIN:VEVENT[ \t]*$/gim) ?? []).length;
}

/**
 * Every corpus file: normalizes without throwing, within a time bound, and every VEVENT is accounted for
 * (drafted, failed with a named reason, outside the window, or superseded by a newer copy): nothing is
 * silently dropped. What each file produces is pinned by its golden (corpus-golden.test.ts).
 */
describe('ICS corpus', () => {
  const files = corpusFiles();
  const results = new Map<string, Run>();

  it('has the 80 files SOURCES.md lists', () => {
    expect(files).toHaveLength(80);
  });

  for (const file of files) {
    // No wall-clock bound here: parse time is measured by bench/import-ics.ts; a hang still fails
    // through the test timeout.
    it(file, () => {
      const r = runCorpus(file);
      results.set(file, r);
      const { drafts, failures, summary } = r;
      expect(summary.vevents).toBe(countVevents(file));

      const a = summary.accounting;
      expect(a.drafted + a.failed + a.outsideWindow + a.superseded).toBe(summary.vevents);
      expect(summary.occurrences).toBe(drafts.length);
      expect(summary.failures).toBe(failures.length);
      expect(a.failed).toBeLessThanOrEqual(failures.length);
      if (a.drafted > 0) expect(drafts.length).toBeGreaterThan(0);
      // Each failure names its VEVENT (position and line) and says why.
      for (const f of failures) {
        expect(f.reason).toMatch(/^VEVENT #\d+ at line \d+( \(UID .+\))?: \S/);
        expect(f.origin.source).toBe(file);
      }
      for (const d of drafts) {
        expect(EventDraft.safeParse(d).success).toBe(true);
        expect(d.origin.source).toBe(file);
      }
      // Identities are unique: one site event per occurrence.
      expect(new Set(drafts.map((d) => d.identity)).size).toBe(drafts.length);
    });
  }

  it('accounts for every VEVENT of the whole corpus', () => {
    let vevents = 0;
    let accounted = 0;
    for (const file of files) {
      const { summary } = results.get(file) ?? runCorpus(file);
      vevents += countVevents(file);
      const a = summary.accounting;
      accounted += a.drafted + a.failed + a.outsideWindow + a.superseded;
    }
    expect(vevents).toBe(861);
    expect(accounted).toBe(vevents);
  });

  it('counts VEVENTs outside a narrow window instead of dropping them silently', () => {
    const r = normalizeIcs(corpusBytes('apple-ical2-barca-fixtures-spanish-catalan-madrid.ics'), {
      sourceKey: 'barca', sourceName: 'barca.ics', window: { from: new Date('2006-10-01T00:00:00Z'), to: new Date('2006-11-01T00:00:00Z') },
    });
    const a = r.summary.accounting;
    expect(r.summary.vevents).toBe(53);
    expect(a.drafted).toBe(r.summary.occurrences);
    expect(a.drafted).toBeGreaterThan(0);
    expect(a.outsideWindow).toBe(53 - a.drafted);
  });
});
