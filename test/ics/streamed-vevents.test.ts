import { describe, expect, it } from 'vitest';
import { parseIcsText, type Component } from '../../src/ical/parse.ts';
import { decodeIcs } from '../../src/sources/ics/decode.ts';
import { finishEvent, newEvent, readEvent, readProp, type RawEvent } from '../../src/sources/ics/event.ts';
import { COMMON, ICS_ONLY, pick } from '../fuzz/mutators.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { corpusBytes, corpusFiles } from './helpers.ts';

// normalize.ts reads a VEVENT's properties as the parse hands them over (a VeventStream), through one
// Prop object reused for every line; readEvent reads a collected component. Both must give the same
// events, the same warnings and the same tree, whatever the file: a reader that kept the reused Prop
// (or anything in it but its strings) would show here as events holding the wrong line's values.

function streamed(text: string): { events: RawEvent[]; warnings: string[]; shells: unknown } {
  const events: RawEvent[] = [];
  let open: RawEvent | undefined;
  const parsed = parseIcsText(text, {
    begin: (line) => void (open = newEvent(events.length + 1, line)),
    prop: (p) => readProp(open!, p),
    end: () => void events.push(finishEvent(open!)),
  });
  return { events, warnings: parsed.warnings.list(), shells: shape(parsed.roots) };
}

function collected(text: string): { events: RawEvent[]; warnings: string[]; shells: unknown } {
  const comps: Component[] = [];
  const parsed = parseIcsText(text, (c) => comps.push({ ...c, props: [...c.props] }));
  return { events: comps.map((c, i) => readEvent(c, i + 1)), warnings: parsed.warnings.list(), shells: shape(parsed.roots) };
}

function shape(roots: Component[]): unknown {
  const s = (c: Component): unknown => [c.name, c.line, c.unterminated, c.props, c.children.map(s)];
  return roots.map(s);
}

function same(text: string, label: string): void {
  expect(streamed(text), label).toStrictEqual(collected(text));
}

describe('VEVENTs read as the parse streams their properties', () => {
  it('are the events readEvent reads from collected components, for every corpus file', () => {
    for (const f of corpusFiles()) same(decodeIcs(corpusBytes(f)).text, f);
  });

  it('are the same on damaged files (seeded mutations of the corpus) and on generated feeds', () => {
    const files = corpusFiles();
    const mutators = { ...COMMON, ...ICS_ONLY };
    const names = Object.keys(mutators).filter((n) => n !== 'megabyteLine' && n !== 'hugeEvent');
    let seed = 7;
    const r = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 60; i++) {
      const f = pick(r, files);
      const m = pick(r, names);
      same(decodeIcs(mutators[m](Buffer.from(corpusBytes(f)), r)).text, `${f} ${m} #${i}`);
    }
    for (const s of [1, 2]) same(generateIcsFeed({ events: 200, seed: s, recurringShare: 0.2 }), `generated seed ${s}`);
  });

  it('nest nothing: a VALARM\'s properties stay its own, and an unterminated VEVENT still ends', () => {
    const text = ['BEGIN:VCALENDAR', 'BEGIN:VEVENT', 'UID:1', 'BEGIN:VALARM', 'DESCRIPTION:alarm', 'END:VALARM', 'SUMMARY:one', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:2', 'DTSTART;TZID=Europe/Paris:20250101T100000', 'BEGIN:VEVENT', 'UID:3', 'END:VCALENDAR'].join('\r\n');
    const { events } = streamed(text);
    expect(events.map((e) => [e.uid, e.summary, e.description, e.tzids])).toEqual([['1', 'one', undefined, []], ['2', undefined, undefined, ['Europe/Paris']], ['3', undefined, undefined, []]]);
    same(text, 'hand-written');
  });
});
