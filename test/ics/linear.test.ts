import { describe, expect, it } from 'vitest';
import { parseIcsText } from '../../src/ical/parse.ts';

/** One DESCRIPTION folded over `n` continuation lines (RFC folds: CRLF + one space). */
function folded(n: number): string {
  return `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:f\r\nSUMMARY:f\r\nDTSTART:20270101T100000Z\r\nDESCRIPTION:start\r\n${' abcdefghij\r\n'.repeat(n)}END:VEVENT\r\nEND:VCALENDAR\r\n`;
}

/** Best of three: the machine is shared, so one slow run says nothing. */
function bestMs(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = parseIcsText(text);
    best = Math.min(best, performance.now() - t0);
    expect(r.roots[0].children[0].props.find((p) => p.name === 'DESCRIPTION')!.value.length).toBe(5 + 10 * (text.length - folded(0).length) / 13);
  }
  return best;
}

describe('regression: unfolding was quadratic (10k folded lines 0.13 s, 40k 15.7 s, 80k 49 s)', () => {
  it('parse time grows linearly with the number of folded lines (10k / 40k / 160k)', () => {
    const sizes = [10_000, 40_000, 160_000];
    const ms = sizes.map((n) => bestMs(folded(n)));
    // 16x the input; linear means a ratio near 16, quadratic ~256: the bound is their midpoint on a
    // log scale. The small run is a few ms, so it gets a floor of 10 ms: on a loaded machine (test
    // files run side by side) GC of the large runs' strings alone makes them 20-30x the small one.
    const ratio = ms[2] / Math.max(ms[0], 10);
    expect(ratio, `times ${ms.map((m) => m.toFixed(0)).join(' / ')} ms`).toBeLessThan(64);
    expect(ms[2], 'the 160k-line file parses in seconds, not minutes').toBeLessThan(10_000);
  });
});
