import { describe, expect, it } from 'vitest';
import { normalizeIcs } from '../../src/sources/ics/index.ts';
import { normalizeIcsIsolated } from '../../src/sources/ics/isolate.ts';
import { fromWire, toWire } from '../../src/sources/ics/wire.ts';
import { corpusBytes, corpusFiles, WIDE } from './helpers.ts';

/**
 * The parser thread sends drafts back as flat value arrays (src/sources/ics/wire.ts); what arrives
 * must be exactly what normalizeIcs made: same keys in the same order (undefined ones too), same
 * values, failures and summary, and the parts drafts share still shared.
 */
const opts = (name: string) => ({ sourceKey: 'w', sourceName: name, window: WIDE });

describe('the parser thread wire format', () => {
  it('round-trips every corpus file exactly, key order included', () => {
    for (const name of corpusFiles()) {
      const direct = normalizeIcs(corpusBytes(name), opts(name));
      const back = fromWire(structuredClone(toWire(direct)));
      expect(back, name).toStrictEqual(direct);
      back.items.forEach((it, i) => {
        const d = direct.items[i];
        if (it.ok && d.ok) {
          expect(Object.keys(it.draft), name).toEqual(Object.keys(d.draft));
          expect(Object.keys(it.draft.origin), name).toEqual(Object.keys(d.draft.origin));
        }
      });
    }
  });

  it('a draft with other keys than normalizeIcs gives travels as it is', () => {
    const direct = normalizeIcs(corpusBytes(corpusFiles()[0]), opts('x'));
    const first = direct.items.find((i) => i.ok);
    if (!first?.ok) throw new Error('the first corpus file has no draft');
    Object.assign(first.draft, { slug: 'explicit' });
    const back = fromWire(structuredClone(toWire(direct)));
    expect(back).toStrictEqual(direct);
  });

  it('through the thread: shared venue and term lists arrive shared, and the drafts equal in-process parsing', async () => {
    const ics = ['BEGIN:VCALENDAR'];
    for (const uid of ['a', 'b']) ics.push('BEGIN:VEVENT', `UID:${uid}`, 'SUMMARY:Talk', 'DTSTART:20240601T180000Z', 'LOCATION:Hall 1, Main St 2', 'CATEGORIES:Science', 'END:VEVENT');
    ics.push('END:VCALENDAR');
    const bytes = new TextEncoder().encode(ics.join('\r\n'));
    const r = await normalizeIcsIsolated(bytes, opts('t.ics'));
    expect(r).toStrictEqual(normalizeIcs(bytes, opts('t.ics')));
    const [a, b] = r.items.map((i) => (i.ok ? i.draft : undefined));
    expect(a?.venue).toBeDefined();
    expect(b?.venue).toBe(a?.venue);
    expect(b?.categories).toBe(a?.categories);
  });
});
