import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EventDraft, ItemFailure } from '../../src/model/draft.ts';
import { formatUtcIso, secondsFromFields, wallToUtc } from '../../src/model/timezones.ts';
import { normalizeIcs, type IcsNormalizeOptions, type IcsSummary } from '../../src/sources/ics/index.ts';
import { decodeIcs } from '../../src/sources/ics/decode.ts';
import { readEvent, type RawEvent } from '../../src/sources/ics/event.ts';
import { parseIcsText, type Component } from '../../src/ical/parse.ts';

/** The real-world corpus (third-party files under their own licences: test/fixtures/third-party/corpus/SOURCES.md). */
export const CORPUS_DIR = new URL('../fixtures/third-party/corpus/ics/', import.meta.url);

export function corpusFiles(): string[] {
  return readdirSync(fileURLToPath(CORPUS_DIR)).filter((f) => f.endsWith('.ics')).sort();
}

export function corpusBytes(name: string): Uint8Array {
  return readFileSync(new URL(name, CORPUS_DIR));
}

/** A window wide enough for everything in the (old) corpus. */
export const WIDE = { from: new Date('1900-01-01T00:00:00Z'), to: new Date('2100-01-01T00:00:00Z') };

export interface Run {
  drafts: EventDraft[];
  failures: ItemFailure[];
  summary: IcsSummary;
}

export function run(bytes: Uint8Array | string, opts: Partial<IcsNormalizeOptions> = {}, name = 'test.ics'): Run {
  const b = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const r = normalizeIcs(b, { sourceKey: 'test', sourceName: name, window: WIDE, ...opts });
  return {
    drafts: r.items.flatMap((i) => (i.ok ? [i.draft] : [])),
    failures: r.items.flatMap((i) => (i.ok ? [] : [i.failure])),
    summary: r.summary,
  };
}

export function runCorpus(name: string, opts: Partial<IcsNormalizeOptions> = {}): Run {
  return run(corpusBytes(name), opts, name);
}

function wallSeconds(wall: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(wall);
  if (!m) throw new Error(`bad wall time ${wall}`);
  const s = secondsFromFields(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
  if (s === undefined) throw new Error(`bad wall time ${wall}`);
  return s;
}

/** UTC instant (ISO, Z) of a draft's start / end, from its wall time and zone. */
export function startUtc(d: EventDraft): string {
  return formatUtcIso(wallToUtc(d.timezone, wallSeconds(d.start_date)));
}
export function endUtc(d: EventDraft): string {
  return formatUtcIso(wallToUtc(d.timezone, wallSeconds(d.end_date)));
}

/** Minimal ICS around VEVENT bodies (CRLF, as RFC 5545 wants). */
export function ics(...vevents: string[]): string {
  const body = vevents.map((v) => `BEGIN:VEVENT\n${v.trim()}\nEND:VEVENT`).join('\n');
  return `BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n${body}\nEND:VCALENDAR\n`.replace(/\n/g, '\r\n');
}


/** The parsed component tree of a corpus file (for checks below the draft level). */
export function corpusTree(name: string): Component[] {
  return parseIcsText(decodeIcs(corpusBytes(name)).text).roots;
}

/** Every VEVENT of a corpus file, read but not normalized (exact DESCRIPTION text etc.). */
export function corpusEvents(name: string): RawEvent[] {
  const out: Component[] = [];
  const visit = (c: Component): void => {
    if (c.name === 'VEVENT') out.push(c);
    else c.children.forEach(visit);
  };
  corpusTree(name).forEach(visit);
  return out.map((c, i) => readEvent(c, i + 1));
}
