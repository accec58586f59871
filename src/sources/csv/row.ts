import type { ItemFailure } from '../../model/draft.ts';
import { webUrl } from '../../model/html.ts';
import { memoized } from '../../util/memo.ts';
import { parseBoolean } from './booleans.ts';
import type { PartTable } from './row-parts.ts';
import type { DateOrder } from './dates.ts';
import { parseStatus, type PostStatus } from './status.ts';
import type { CsvKind } from './types.ts';

/**
 * The row helper shared by every kind: reading a cell by field name, parsing it (boolean, web
 * address, e-mail, post status) and collecting problems as `<column as written in the file>: <what
 * is wrong>`. `Row<F>` is typed by the kind's field names (fields.ts), so the builders of event
 * rows (event-row.ts) and linked rows (linked-row.ts) cannot name a field that does not exist.
 */

export interface RowContext {
  kind: CsvKind;
  sourceName: string;
  fields: (string | null)[];
  labels: string[];
  /** Number of columns a row must have. */
  width: number;
  /** What `width` was taken from, for the ragged-row message. */
  widthFrom: 'header' | 'first row';
  order?: DateOrder;
  defaultTimezone: string;
  status?: string;
  keyIndex?: number;
  delimiter: string;
  /** field → first column index holding it (a Map: an object keyed by a file's fields is a dictionary, read at half the speed). */
  colOf: Map<string, number>;
  /** The parts rows repeat, per part (row-parts.ts): kept for one file, as the labels in their messages are its own. */
  parts: Map<string, PartTable>;
  /** Rows so far whose times were read in `defaultTimezone` (no zone cell, not all-day): the report says the zone only then. */
  floatingRows: number;
}

export function makeRowContext(base: Omit<RowContext, 'colOf' | 'parts' | 'floatingRows'>): RowContext {
  const colOf = new Map<string, number>();
  base.fields.forEach((f, i) => {
    if (f && !colOf.has(f)) colOf.set(f, i);
  });
  return { ...base, colOf, parts: new Map(), floatingRows: 0 };
}

export const ITEM_KIND: Record<CsvKind, ItemFailure['kind']> = { events: 'event', venues: 'venue', organizers: 'organizer' };

export class Row<F extends string> {
  readonly errors: string[] = [];
  readonly ctx: RowContext;
  readonly cells: string[];
  constructor(ctx: RowContext, cells: string[]) {
    this.ctx = ctx;
    this.cells = cells;
  }

  has(field: F): boolean {
    return this.ctx.colOf.has(field);
  }
  get(field: F): string {
    const i = this.ctx.colOf.get(field);
    return i === undefined ? '' : (this.cells[i] ?? '').trim();
  }
  label(field: F): string {
    const i = this.ctx.colOf.get(field);
    return i === undefined ? field : this.ctx.labels[i]!;
  }
  fail(field: F, what: string): undefined {
    this.errors.push(`${this.label(field)}: ${what}`);
    return undefined;
  }
  text(field: F): string | undefined {
    return this.get(field) || undefined;
  }
  bool(field: F): boolean | undefined {
    const r = parseBoolean(this.get(field));
    return r.ok ? r.value : this.fail(field, r.reason);
  }
  url(field: F, allowId = false): string | undefined {
    const v = this.get(field);
    if (!v) return undefined;
    if (allowId && /^\d+$/.test(v)) return v;
    const candidate = /^www\./i.test(v) ? `http://${v}` : v;
    if (/^https?:\/\//i.test(candidate) && webUrl(candidate)) return candidate; // the draft's own link check (src/model/html.ts)
    return this.fail(field, `'${v}' is not a web address (http:// or https://)${allowId ? ' or an attachment id' : ''}`);
  }
  email(field: F): string | undefined {
    const v = this.get(field).replace(/^mailto:/i, '');
    if (!v) return undefined;
    if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) return v;
    return this.fail(field, `'${v}' is not an e-mail address`);
  }
  postStatus(field: F): PostStatus {
    const r = parseStatus(this.get(field));
    if (!r.ok) {
      this.fail(field, r.reason);
      return {};
    }
    return r.value;
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

function normalizedName(name: string): string {
  // NFKC leaves ASCII as it is; skipping it there saves a copy per name.
  return (NON_ASCII.test(name) ? name.normalize('NFKC') : name).trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Venue/organizer identity from a name: case, spacing and Unicode forms do not make a new one. Names repeat on every row of a file. */
export const normalizeName = memoized(normalizedName);

/**
 * Names in one cell: split on `;` when the cell has one, else on `,`; in a `;`-delimited file on
 * `,`. Duplicates (by normalizeName) are dropped.
 */
export function splitTerms(cell: string, fileDelimiter: string): string[] {
  if (!cell.trim()) return [];
  const sep = fileDelimiter === ';' ? ',' : cell.includes(';') ? ';' : ',';
  return uniqueNames(cell.split(sep));
}

/** Trimmed, non-empty names, the first of each normalizeName kept. */
export function uniqueNames(parts: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of parts) {
    const name = raw.trim();
    const key = normalizeName(name);
    if (name && !seen.has(key)) {
      seen.add(key);
      out.push(name);
    }
  }
  return out;
}

/** Without its undefined keys (a copy: `delete` would turn every draft into a slow dictionary object). */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (obj[k] !== undefined) out[k] = obj[k];
  return out as T;
}

export function joinAddress(a: string | undefined, b: string | undefined): string | undefined {
  return a && b ? `${a}, ${b}` : a || b || undefined;
}
