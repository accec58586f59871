import { describe, expect, it } from 'vitest';
import { normalizeIcs } from '../../src/sources/ics/normalize.ts';

/**
 * Regression: two places passed a list of a feed's own length as call arguments (`push(...times)`
 * for an EXDATE's values, `Math.max(...)` over the VEVENTs sharing one UID). A long enough list
 * overflows the call stack: `calsync import ics` on a 17 MB feed whose one EXDATE line lists 1 M
 * dates failed with "the ICS parser failed: Maximum call stack size exceeded", and the good events
 * beside it were not imported. Both are bounded only by the download cap, so both must be loops.
 */

const WINDOW = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
const calendar = (body: string): string => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${body}END:VCALENDAR\r\n`;
const good = 'BEGIN:VEVENT\r\nUID:good@test\r\nSUMMARY:good\r\nDTSTART:20270301T100000Z\r\nDTEND:20270301T110000Z\r\nEND:VEVENT\r\n';
const run = (text: string) => normalizeIcs(new TextEncoder().encode(text), { sourceKey: 'a', sourceName: 'long-lists.ics', window: WINDOW });

describe('regression: a long EXDATE list or many VEVENTs of one UID overflowed the call stack and failed the whole feed', () => {
  it('an EXDATE listing 1,000,000 dates is read; the series and the event beside it import', () => {
    const dates = Array.from({ length: 1_000_000 }, (_, i) => `2027${String(1 + (i % 12)).padStart(2, '0')}01T100000Z`).join(',');
    const series = `BEGIN:VEVENT\r\nUID:series@test\r\nSUMMARY:daily\r\nDTSTART:20270101T100000Z\r\nDTEND:20270101T110000Z\r\nRRULE:FREQ=DAILY;COUNT=365\r\nEXDATE:${dates}\r\nEND:VEVENT\r\n`;
    const { items } = run(calendar(good + series));
    const titles = items.filter((i) => i.ok).map((i) => (i.ok ? i.draft.title : ''));
    expect(titles).toContain('good');
    // 365 days less the 12 first-of-month dates excluded (each listed many times).
    expect(titles.filter((t) => t === 'daily')).toHaveLength(365 - 12);
  });

  it('240,000 identical VEVENTs of one UID (under the 250,000 cap) are superseded down to one', () => {
    const copy = 'BEGIN:VEVENT\r\nUID:dup@test\r\nSUMMARY:dup\r\nDTSTART:20270201T100000Z\r\nEND:VEVENT\r\n';
    const { items } = run(calendar(good + copy.repeat(240_000)));
    const titles = items.filter((i) => i.ok).map((i) => (i.ok ? i.draft.title : ''));
    expect(titles.sort()).toEqual(['dup', 'good']);
  });
});
