import fs from 'node:fs';
import { Readable } from 'node:stream';
import { inspectCsv, readCsv, type CsvInspection, type CsvItem, type CsvOptions } from '../../src/sources/csv/index.ts';
import type { EventDraft, ItemFailure, OrganizerDraft, VenueDraft } from '../../src/model/draft.ts';

/** Third-party CSV files under their own licences (test/fixtures/third-party/corpus/SOURCES.md). */
export const CORPUS = new URL('../fixtures/third-party/corpus/csv/', import.meta.url);

export function corpusOpen(name: string): () => NodeJS.ReadableStream {
  const path = new URL(name, CORPUS);
  return () => fs.createReadStream(path);
}

/** A fresh stream over fixed bytes per call, cut into chunks of `chunk` bytes (1 = byte by byte). */
export function bytesOpen(data: string | Buffer, chunk = 64 * 1024): () => NodeJS.ReadableStream & { destroyed?: boolean } {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return () =>
    Readable.from(
      (function* () {
        for (let i = 0; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk);
      })(),
      { objectMode: false },
    );
}

export function opts(extra: Partial<CsvOptions> = {}): CsvOptions {
  return { kind: 'events', sourceKey: 'test', sourceName: 'test.csv', ...extra };
}

export interface Collected {
  inspection: CsvInspection;
  items: CsvItem[];
  drafts: EventDraft[];
  failures: ItemFailure[];
  byLine: Map<number, CsvItem>;
}

export async function collect(open: () => NodeJS.ReadableStream, o: CsvOptions): Promise<Collected> {
  const inspection = await inspectCsv(open, o);
  const items: CsvItem[] = [];
  for await (const item of readCsv(open, o, inspection)) items.push(item);
  const drafts = items.flatMap((i) => (i.result.ok ? [i.result.draft as EventDraft] : []));
  const failures = items.flatMap((i) => (i.result.ok ? [] : [i.result.failure]));
  return { inspection, items, drafts, failures, byLine: new Map(items.map((i) => [i.line, i])) };
}

export function draftAt(c: Collected, line: number): EventDraft {
  const item = c.byLine.get(line);
  if (!item) throw new Error(`no item at line ${line}`);
  if (!item.result.ok) throw new Error(`line ${line} failed: ${item.result.failure.reason}`);
  return item.result.draft as EventDraft;
}

export function failureAt(c: Collected, line: number): ItemFailure {
  const item = c.byLine.get(line);
  if (!item) throw new Error(`no item at line ${line}`);
  if (item.result.ok) throw new Error(`line ${line} did not fail`);
  return item.result.failure;
}

export async function refusal(promise: Promise<unknown>): Promise<{ reason: string; hint?: string; file: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name?: string; reason: string; hint?: string; file: string };
    if (e.name === 'CsvRefusedError') return e;
    throw error;
  }
  throw new Error('expected a refusal');
}

export type { VenueDraft, OrganizerDraft };

/** Data rows per file, counted by hand from the files (header and title lines excluded). */
export const DATA_ROWS: Record<string, number> = {
  'cruise-schedule-headerless-iso-datetimes.csv': 116,
  'csv2ical-combined-datetime-columns-overnight.csv': 3,
  'event-organiser-doubled-quotes-in-field.csv': 1,
  'event-organiser-recurrence-columns-iso-datetimes.csv': 4,
  'massport-cruise-schedule-excel-title-row-crlf.csv': 117,
  'norwegian-cycling-semicolon-windows1252-crlf-html.csv': 4,
  'the-events-calendar-crlf-ragged-rows-mixed-booleans.csv': 4,
  'the-events-calendar-timezone-column-utc-offsets.csv': 4,
  'the-events-calendar-two-digit-years-currency.csv': 4,
  'the-events-calendar-uppercase-quoted-headers-month-name-dates.csv': 1,
  'tine20-demo-events-relative-dates-rrule-column-german.csv': 4,
  'yahoo-calendar-export-allday-and-ampm-times.csv': 15,
};

/** Files that need a `--map` (their headers are not calsync/TEC/Google/Outlook names, or absent). */
export const MAPPINGS: Record<string, Record<string, string>> = {
  'cruise-schedule-headerless-iso-datetimes.csv': { 1: 'title', 2: 'start_date', 3: 'end_date', 4: 'description', 5: 'venue' },
  'massport-cruise-schedule-excel-title-row-crlf.csv': {
    Vessel: 'title', Date: 'start_date', ETA: 'start_time', ETD: 'end_time', Berth: 'venue', Remarks: 'description', 'Cruise Line': 'organizer',
  },
  'norwegian-cycling-semicolon-windows1252-crlf-html.csv': { Navn: 'title', Dato: 'start_date', Gren: 'categories', Sted: 'venue', Arrangør: 'organizer' },
};

