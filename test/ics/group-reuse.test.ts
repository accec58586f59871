import { describe, expect, it } from 'vitest';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { normalizeIcs, type IcsNormalizeOptions, type IcsNormalizeResult } from '../../src/sources/ics/normalize.ts';
import { boundsHold, spanHash, windowSeconds, type RecordableGroup, type ReusedGroupMeta } from '../../src/sources/ics/reuse.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { corpusBytes, corpusFiles } from './helpers.ts';

/**
 * Group reuse against normalizing everything, over the whole corpus and a generated feed: a file is
 * normalized in one window (recording its groups), then again in later windows, once with the groups
 * whose bounds hold for that window left alone and once in full. The reused run's summary must be the
 * full run's, its items the full run's minus the reused groups' drafts, and each reused group's drafts
 * in the full run exactly the ones recorded (content, times, identity, origin at the lines of now).
 */

const DAY = 86_400_000;
const W1 = { from: new Date('2006-01-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') };
const SHIFTS = [0, 13 * 3600_000, DAY, 30 * DAY, 400 * DAY];
const shifted = (ms: number) => ({ from: new Date(W1.from.getTime() + ms), to: new Date(W1.to.getTime() + ms) });

interface Recorded {
  g: RecordableGroup;
  drafts: EventDraft[];
}

function record(r: IcsNormalizeResult): Map<string, Recorded> {
  const out = new Map<string, Recorded>();
  for (const g of r.groups!.recordable) out.set(g.hash, { g, drafts: r.items.slice(g.start, g.end).map((it) => (it as Extract<Normalized<EventDraft>, { ok: true }>).draft) });
  return out;
}

/** A draft as it would be made for a group whose VEVENTs now sit at `lines` (recorded at `was`). */
function atLines(d: EventDraft, was: number[], lines: number[]): EventDraft {
  return { ...d, origin: { ...d.origin, line: lines[was.indexOf(d.origin.line!)] } };
}

function compare(bytes: Uint8Array, opts: Omit<IcsNormalizeOptions, 'window'>, recorded: Map<string, Recorded>, ms: number, later: Uint8Array = bytes): number {
  const window = shifted(ms);
  const w = windowSeconds(window);
  const reuse = new Map<string, ReusedGroupMeta>();
  for (const [hash, { g }] of recorded) if (boundsHold({ ...windowSeconds(W1), ...g }, w)) reuse.set(hash, g);
  const part = normalizeIcs(later, { ...opts, window, groups: { reuse } });
  const full = normalizeIcs(later, { ...opts, window });
  expect(part.summary).toEqual(full.summary);
  const reusedLines = new Map<number, { hash: string; lines: number[] }>();
  for (const g of part.groups!.reused) for (const l of g.lines) reusedLines.set(l, g);
  const lineOf = (it: Normalized<EventDraft>) => (it.ok ? it.draft.origin.line : it.failure.origin?.line);
  // Items of groups normalized in the reused run: the full run's, in order.
  expect(part.items).toEqual(full.items.filter((it) => !reusedLines.has(lineOf(it)!)));
  // Each reused group's drafts now: exactly those recorded, at today's lines.
  for (const g of part.groups!.reused) {
    const rec = recorded.get(g.hash)!;
    const now = full.items.filter((it) => g.lines.includes(lineOf(it)!));
    expect(now).toEqual(rec.drafts.map((d) => ({ ok: true, draft: atLines(d, rec.g.lines, g.lines) })));
  }
  return part.groups!.reused.length;
}

describe('group reuse gives what normalizing every group gives', () => {
  const opts = (name: string) => ({ sourceKey: 'reuse', sourceName: name, defaultTimezone: 'Europe/Berlin' });
  let reusedAnywhere = 0;

  for (const file of corpusFiles()) {
    it(file, () => {
      const bytes = corpusBytes(file);
      const first = normalizeIcs(bytes, { ...opts(file), window: W1, groups: {} });
      const recorded = record(first);
      for (const ms of SHIFTS) reusedAnywhere += compare(bytes, opts(file), recorded, ms);
    });
  }

  it('the corpus reuses groups at all (the comparisons above are not vacuous)', () => {
    expect(reusedAnywhere).toBeGreaterThan(500);
  });

  it('a generated feed with series and overrides, re-read with a VEVENT added on top (every line shifts) and a DTSTAMP rewritten', () => {
    const ics = generateIcsFeed({ events: 400, seed: 3, recurringShare: 0.2, start: new Date(Date.UTC(2026, 5, 1)) });
    const bytes = new TextEncoder().encode(ics);
    const first = normalizeIcs(bytes, { ...opts('gen'), window: W1, groups: {} });
    const recorded = record(first);
    expect(recorded.size).toBeGreaterThan(300);
    const extra = 'BEGIN:VEVENT\r\nUID:added-on-top\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260701T100000Z\r\nSUMMARY:New\r\nEND:VEVENT\r\n';
    const later = new TextEncoder().encode(ics.replace('BEGIN:VEVENT', `${extra}BEGIN:VEVENT`).replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:20261127T120000Z'));
    let reused = 0;
    for (const ms of SHIFTS) reused += compare(bytes, opts('gen'), recorded, ms, later);
    expect(reused).toBeGreaterThan(300);
  });
});

describe('what makes a group normalize again', () => {
  const base = { sourceKey: 'reuse', sourceName: 'x.ics', window: { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-12-31T00:00:00Z') } };
  const cal = (body: string, head = '') => new TextEncoder().encode(`BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${head}${body}END:VCALENDAR\r\n`);
  const ev = (uid: string, extra = '') => `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART;TZID=Custom:20260610T100000\r\nDTEND;TZID=Custom:20260610T110000\r\nSUMMARY:Talk ${uid}\r\n${extra}END:VEVENT\r\n`;
  const tz = (offset: string) => `BEGIN:VTIMEZONE\r\nTZID:Custom\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:${offset}\r\nTZOFFSETTO:${offset}\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n`;
  const reuseOf = (r: IcsNormalizeResult) => new Map(r.groups!.recordable.map((g) => [g.hash, g]));
  const reusedUids = (r: IcsNormalizeResult) => r.groups!.reused.length;

  it('an unchanged file reuses every group; a changed VEVENT, option or VTIMEZONE does not', () => {
    const file = cal(ev('a') + ev('b'), tz('+0200'));
    const reuse = reuseOf(normalizeIcs(file, { ...base, groups: {} }));
    expect(reuse.size).toBe(2);
    expect(reusedUids(normalizeIcs(file, { ...base, groups: { reuse } }))).toBe(2);
    expect(reusedUids(normalizeIcs(cal(ev('a', 'LOCATION:Hall 2\r\n') + ev('b'), tz('+0200')), { ...base, groups: { reuse } }))).toBe(1);
    expect(reusedUids(normalizeIcs(file, { ...base, status: 'draft', groups: { reuse } }))).toBe(0);
    expect(reusedUids(normalizeIcs(file, { ...base, defaultTimezone: 'Europe/Paris', groups: { reuse } }))).toBe(0);
    expect(reusedUids(normalizeIcs(cal(ev('a') + ev('b'), tz('+0300')), { ...base, groups: { reuse } }))).toBe(0);
  });

  it('a group with a warning, a failure or a cancelled occurrence is never recorded', () => {
    const r = normalizeIcs(cal(ev('ok') + ev('cancelled', 'STATUS:CANCELLED\r\n') + 'BEGIN:VEVENT\r\nUID:untitled\r\nDTSTART:20260610T100000Z\r\nEND:VEVENT\r\n' + 'BEGIN:VEVENT\r\nUID:nostart\r\nSUMMARY:x\r\nEND:VEVENT\r\n', tz('+0200')), { ...base, groups: {} });
    expect(r.groups!.recordable.map((g) => r.items[g.start]!.ok && (r.items[g.start] as { draft: EventDraft }).draft.origin.uid)).toEqual(['ok']);
  });

  it('a series is bounded by its next occurrence after the window, or by how far past the window it was expanded', () => {
    const file = cal('BEGIN:VEVENT\r\nUID:weekly\r\nDTSTART:20260105T100000Z\r\nDTEND:20260105T110000Z\r\nRRULE:FREQ=WEEKLY\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n');
    const [g] = normalizeIcs(file, { ...base, groups: {} }).groups!.recordable;
    const w = windowSeconds(base.window);
    // The first occurrence ends 2026-01-05 11:00; after the window (2026-12-31), the series was expanded
    // only to about 2027-01-02, before the next Monday: the bound is how far it was seen, 36 hours.
    expect(g!.fromHi).toBe(Date.UTC(2026, 0, 5, 11) / 1000);
    expect(g!.toHi).toBe(w.to + 36 * 3600);
    expect(boundsHold({ ...w, ...g! }, { from: w.from + 3600, to: w.to + 3600 })).toBe(true);
    expect(boundsHold({ ...w, ...g! }, { from: w.from, to: w.to + 37 * 3600 })).toBe(false);
    // A daily series' next occurrence comes first.
    const daily = cal('BEGIN:VEVENT\r\nUID:daily\r\nDTSTART:20260105T100000Z\r\nDTEND:20260105T110000Z\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Daily\r\nEND:VEVENT\r\n');
    expect(normalizeIcs(daily, { ...base, groups: {} }).groups!.recordable[0]!.toHi).toBe(Date.UTC(2026, 11, 31, 10) / 1000);
    expect(boundsHold({ ...w, ...g! }, { from: w.from - 1, to: w.to })).toBe(false);
  });

  it('an override moved past the window bounds the group at its new start', () => {
    // Window ends 2026-12-31 00:00Z; the last instance (Dec 28) is moved to 06:00 on Dec 31, after the window's end.
    const file = cal([
      'BEGIN:VEVENT\r\nUID:moved\r\nDTSTART:20261207T100000Z\r\nDTEND:20261207T110000Z\r\nRRULE:FREQ=WEEKLY;UNTIL=20261228T100000Z\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n',
      'BEGIN:VEVENT\r\nUID:moved\r\nRECURRENCE-ID:20261228T100000Z\r\nDTSTART:20261231T060000Z\r\nDTEND:20261231T070000Z\r\nSUMMARY:Weekly (moved)\r\nEND:VEVENT\r\n',
    ].join(''));
    const [g] = normalizeIcs(file, { ...base, groups: {} }).groups!.recordable;
    const w = windowSeconds(base.window);
    expect(g!.toHi).toBe(Date.UTC(2026, 11, 31, 6) / 1000);
    expect(boundsHold({ ...w, ...g! }, { from: w.from, to: w.to + 7 * 3600 })).toBe(false);
    expect(boundsHold({ ...w, ...g! }, { from: w.from, to: w.to + 5 * 3600 })).toBe(true);
  });

  it('a yearly series is bounded by how far past the window it was expanded (36 hours), not by its next occurrence', () => {
    const file = cal('BEGIN:VEVENT\r\nUID:yearly\r\nDTSTART:20260305T100000Z\r\nDTEND:20260305T110000Z\r\nRRULE:FREQ=YEARLY\r\nSUMMARY:Yearly\r\nEND:VEVENT\r\n');
    const [g] = normalizeIcs(file, { ...base, groups: {} }).groups!.recordable;
    const w = windowSeconds(base.window);
    expect(g!.toHi).toBe(w.to + 36 * 3600);
    expect(boundsHold({ ...w, ...g! }, { from: w.from + 86_400, to: w.to + 86_400 })).toBe(true);
  });

  it("a VEVENT's hash leaves out its DTSTAMP (folded too) and nothing else", () => {
    const span = (stamp: string, rest = 'SUMMARY:Talk\r\n') => `BEGIN:VEVENT\r\nUID:a\r\n${stamp}${rest}`;
    const h = (t: string) => spanHash(t, 0, t.length);
    const base = h(span('DTSTAMP:20260101T000000Z\r\n'));
    expect(h(span('DTSTAMP:20261127T120000Z\r\n'))).toBe(base);
    expect(h(span('DTSTAMP:20261127\r\n T120000Z\r\n'))).toBe(base);
    expect(h(span(''))).toBe(base);
    expect(h(span('DTSTAMP:20261127T120000Z\r\n', 'SUMMARY:Talk!\r\n'))).not.toBe(base);
    expect(h(span('DTSTAMP:20261127T120000Z\r\n', 'SUMMARY:Talk\r\n LONGER\r\n'))).not.toBe(base);
  });
});
