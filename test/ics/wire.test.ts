import { describe, expect, it } from 'vitest';
import { normalizeIcs } from '../../src/sources/ics/index.ts';
import { normalizeIcsIsolated } from '../../src/sources/ics/isolate.ts';
import { fromWire, toWire, WireDecoder, WireEncoder } from '../../src/sources/ics/wire.ts';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { DraftKeys, draftKey } from '../../src/write/draft-keys.ts';
import { corpusBytes, corpusFiles, WIDE } from './helpers.ts';

/**
 * The parser thread sends drafts back as flat value arrays (src/sources/ics/wire.ts); what arrives
 * must be exactly what normalizeIcs made: same keys in the same order (undefined ones too), same
 * values, failures and summary, and the parts drafts share still shared.
 */
const opts = (name: string) => ({ sourceKey: 'w', sourceName: name, window: WIDE });

describe('the parser thread wire format', () => {
  // JSON keeps key order; the replacer keeps keys whose value is undefined (a deep toStrictEqual of
  // the 70k-draft corpus file took most of a minute on a loaded machine).
  const exact = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (x === undefined ? '\u0000undefined' : x));

  it.each(corpusFiles())('round-trips %s exactly, key order included', (name) => {
    const direct = normalizeIcs(corpusBytes(name), opts(name));
    const back = fromWire(structuredClone(toWire(direct)));
    expect(back.items.length).toBe(direct.items.length);
    expect(exact(back) === exact(direct)).toBe(true);
  });

  it('the occurrences after the first of a VEVENT send only their own fields', () => {
    const bytes = new TextEncoder().encode('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:s\r\nSUMMARY:Weekly\r\nDESCRIPTION:Long text\r\nDTSTART:20240603T100000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    const direct = normalizeIcs(bytes, opts('s.ics'));
    const wire = toWire(direct);
    // One whole draft (tag + 20 values), then two of its own fields only (tag + 8 values each).
    expect(wire.items).toHaveLength(21 + 2 * 9);
    expect(wire.items.filter((x) => x === 'Weekly')).toHaveLength(1);
    expect(fromWire(structuredClone(wire))).toStrictEqual(direct);
  });

  it('a draft with other keys than normalizeIcs gives travels as it is', () => {
    const direct = normalizeIcs(corpusBytes(corpusFiles()[0]), opts('x'));
    const first = direct.items.find((i) => i.ok);
    if (!first?.ok) throw new Error('the first corpus file has no draft');
    Object.assign(first.draft, { slug: 'explicit' });
    const back = fromWire(structuredClone(toWire(direct)));
    expect(back).toStrictEqual(direct);
  });

  it('sent in parts, cut anywhere, the items arrive exactly as one message would bring them', () => {
    const bytes = new TextEncoder().encode(generateIcsFeed({ events: 300, seed: 5, recurringShare: 0.2, start: new Date(Date.UTC(2025, 0, 6)) }));
    const direct = normalizeIcs(bytes, opts('p.ics'));
    const encoder = new WireEncoder();
    const decoder = new WireDecoder();
    const items: Normalized<EventDraft>[] = [];
    // Cuts inside a VEVENT's run of occurrences too: a part may take its content from the part before.
    for (let from = 0; from < direct.items.length; from += 37) decoder.decode(structuredClone(encoder.encode(direct.items, from, Math.min(from + 37, direct.items.length))), items);
    expect(exact(items) === exact(direct.items)).toBe(true);
  });

  it('through the thread, streamed: several parts, in file order, that together are the result', async () => {
    const bytes = new TextEncoder().encode(generateIcsFeed({ events: 1500, seed: 3, recurringShare: 0.1, start: new Date(Date.UTC(2025, 0, 6)) }));
    const parts: Normalized<EventDraft>[][] = [];
    const r = await normalizeIcsIsolated(bytes, opts('big.ics'), undefined, { onItems: (part) => parts.push(part) });
    const direct = normalizeIcs(bytes, opts('big.ics'));
    expect(parts.length).toBeGreaterThan(2);
    expect(exact(parts.flat()) === exact(direct.items)).toBe(true);
    expect(exact(r) === exact(direct)).toBe(true);
  });

  it('through the thread, with keys: every draft arrives with the slug and shape worked out for it in-process', async () => {
    const bytes = new TextEncoder().encode(generateIcsFeed({ events: 600, seed: 4, recurringShare: 0.2, start: new Date(Date.UTC(2025, 0, 6)) }));
    const keys = new DraftKeys('w', 'draft');
    const streamed: Normalized<EventDraft>[] = [];
    const r = await normalizeIcsIsolated(bytes, opts('k.ics'), undefined, { keys, onItems: (part) => streamed.push(...part) });
    expect(exact(r) === exact(normalizeIcs(bytes, opts('k.ics')))).toBe(true);
    const drafts = r.items.flatMap((it) => (it.ok ? [it.draft] : []));
    expect(drafts.length).toBeGreaterThan(1000);
    const wrong = drafts.filter((d) => JSON.stringify(keys.get(d)) !== JSON.stringify(draftKey(d, 'w', 'draft')));
    expect(wrong).toEqual([]);
    // The parts streamed are the very drafts of the result, so the writer finds their keys.
    expect(streamed.every((it) => !it.ok || keys.get(it.draft) !== undefined)).toBe(true);
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
