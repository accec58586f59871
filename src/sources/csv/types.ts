import type { EventDraft, Normalized, OrganizerDraft, VenueDraft } from '../../model/draft.ts';

export type CsvKind = 'events' | 'venues' | 'organizers';

export interface CsvOptions {
  kind: CsvKind;
  sourceKey: string;
  /** The file name, used in origins and messages. */
  sourceName: string;
  /** 'auto' (default): BOM, then UTF-8 validity, then chardet with Windows-1252 as the fallback. */
  encoding?: string;
  delimiter?: 'auto' | ',' | ';' | '\t' | '|';
  /** `{ "<column header or 1-based index>": "<field>" }`; a field of `ignore` silences a column. */
  mapping?: Record<string, string>;
  /** A column holding a stable id: identity becomes `key:<value>`. */
  key?: string;
  /** e.g. `DD/MM/YYYY`, `MM/DD/YY`, `D.M.YYYY`, `YYYY/MM/DD`; only the order of D, M and Y matters. */
  dateFormat?: string;
  /** Zone for rows without a time-zone column value (default `UTC`). */
  defaultTimezone?: string;
  /** Post status for rows whose own status cell is empty. */
  status?: string;
}

export interface CsvInspection {
  encoding: string;
  delimiter: string;
  /** Physical line of the header row (1-based); 0 for a header-less file read by column index. */
  headerLine: number;
  /** Header cells as written; `column N` for a header-less file. */
  headers: string[];
  /** header (or `column N` label) → field actually used. */
  mapping: Record<string, string>;
  unmapped: string[];
  /** The date order in effect (`DD/MM/YYYY`, `MM/DD/YYYY`, `YYYY/MM/DD`), when the file has numeric dates. */
  dateFormat?: string;
  /** Data rows (blank lines excluded): readCsv yields exactly this many items for an unchanged file. */
  rows: number;
  /** Line break of the file, so the reading pass need not guess it from its first chunk. */
  newline?: '\r\n' | '\n' | '\r';
  /** Field per column index (null = unmapped/ignored): what readCsv actually uses (JSON-safe). */
  fields?: (string | null)[];
  /** Physical lines skipped above the header (an Excel title row). */
  skippedLines?: number[];
  /** Blank (all-empty) lines among the data, skipped and counted here so the totals add up. */
  blankLines?: number;
  /** Data rows with fewer cells than the header: their missing trailing cells read as empty. */
  shortRows?: number;
}

export type AnyDraft = EventDraft | VenueDraft | OrganizerDraft;

export interface CsvItem {
  /** Physical line number of the row's first line (1-based, counting title/header lines and embedded newlines). */
  line: number;
  /** The row's cells as parsed (ragged rows keep all their cells). */
  raw: string[];
  result: Normalized<AnyDraft>;
  /** Set when the row's times were read in the default zone (it names none): the report says which zone then. */
  floating?: true;
}
