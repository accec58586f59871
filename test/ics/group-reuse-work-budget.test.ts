import { describe, expect, it } from 'vitest';
import { normalizeIcs, type IcsNormalizeResult } from '../../src/sources/ics/normalize.ts';

/**
 * Defect (group reuse and the file's recurrence work budget): a reused group drew nothing from the
 * work budget the file's series share (normalize.ts maxRecurrenceWork, series.ts runSeries), so a
 * series after it was expanded in full where normalizing every group runs out of budget on it
 * (warning, fewer occurrences). A feed of many long-running series reaches the default budget.
 */

const base = { sourceKey: 'reuse', sourceName: 'budget.ics', window: { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-12-31T00:00:00Z') } };
const cal = (body: string) => new TextEncoder().encode(`BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${body}END:VCALENDAR\r\n`);
// A daily series since 2000: expanding it to the window costs about 9,800 units of work and keeps 364 occurrences.
const daily = (uid: string) => `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART:20000101T100000Z\r\nDTEND:20000101T110000Z\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Daily ${uid}\r\nEND:VEVENT\r\n`;
const reuseOf = (r: IcsNormalizeResult) => new Map(r.groups!.recordable.map((g) => [g.hash, g]));

describe('group reuse and the recurrence work budget', () => {
  it('a reused group draws on the work budget as normalizing it does: the series after it ends the same', () => {
    const one = normalizeIcs(cal(daily('a')), { ...base, groups: {} });
    // The budget two series need (found by trying: the work unit is the expansion's own).
    const cost = (n: number) => {
      for (let budget = 1_000; ; budget += 1_000) {
        const r = normalizeIcs(cal(['a', 'b', 'c'].slice(0, n).map(daily).join('')), { ...base, maxRecurrenceWork: budget });
        if (r.summary.warnings.length === 0) return budget;
      }
    };
    const two = cost(2);
    expect(one.groups!.recordable).toHaveLength(1);
    // Budget: enough for two series, not for three.
    const opts = { ...base, maxRecurrenceWork: two };
    const first = normalizeIcs(cal(daily('a') + daily('b')), { ...opts, groups: {} });
    expect(first.summary.warnings).toEqual([]);
    const reuse = reuseOf(first);
    expect(reuse.size).toBe(2);
    // The feed gains a third series after the first two.
    const later = cal(daily('a') + daily('b') + daily('c'));
    const full = normalizeIcs(later, opts);
    const part = normalizeIcs(later, { ...opts, groups: { reuse } });
    expect(full.summary.warnings.join('\n')).toMatch(/work limit/);
    expect(part.groups!.reused).toHaveLength(2);
        expect(part.summary).toEqual(full.summary);
    expect(part.items).toEqual(full.items.filter((it) => !it.ok || it.draft.origin.uid === 'c'));
  });
});
