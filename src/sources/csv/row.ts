import type { z } from 'zod';
import {
  EventDraft,
  OrganizerDraft,
  VenueDraft,
  type ItemFailure,
  type Normalized,
  type TermDraft,
} from '../../model/draft.ts';
import { cleanEvent, cleanOrganizer, cleanVenue } from '../../model/clean.ts';
import { parseBoolean } from './booleans.ts';
import {
  addDays,
  compareDates,
  compareTimes,
  formatWall,
  instantOf,
  parseDateTime,
  parseTime,
  type DateOrder,
  type DateTimeValue,
  type HMS,
  type YMD,
} from './dates.ts';
import type { AnyDraft, CsvKind } from './types.ts';
import { parseZone, wallTimeIn } from './zones.ts';

/**
 * One CSV row → one draft or one failure. Every problem on the row is collected (not just the
 * first) and reported as `<column as written in the file>: <what is wrong>`, joined by `; `.
 *
 * Choices worth knowing (documented for the lead and users):
 * - All-day: `all_day` true, or no start time at all → 00:00:00 of the first day to 23:59:59 of
 *   the last day; times on an all-day row are ignored. An end date with time 00:00 after the start
 *   date is taken as an exclusive end (Outlook's export) and moved back one day.
 * - Timed, no end → end = start. End time without end date → same day, or the next day when it is
 *   earlier than the start time (overnight, e.g. 22:00-02:00). End date without end time → that day
 *   23:59:59 (or = start when on the same day).
 * - Date-times carrying an offset/`Z` are converted to the row's zone (the site ignores offsets).
 * - Categories/tags: split on `;` when the cell has one, else on `,`; in a `;`-delimited file on `,`.
 * - Organizers: several in one cell are separated by `;` only (names like "Smith, John" keep their
 *   comma); organizer e-mail/phone/website columns apply when the cell names exactly one.
 * - Cost: text kept; a currency symbol column is put before it (or after, with position
 *   `suffix`/`after`), a currency code column is appended ("76 USD").
 * - Status: publish/draft/pending/private/future; `cancelled` marks the event cancelled; calendar
 *   states (confirmed/tentative) are not post statuses and are ignored; `private` = yes → private.
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
  /** field → first column index holding it. */
  colOf: Record<string, number>;
}

export function makeRowContext(base: Omit<RowContext, 'colOf'>): RowContext {
  const colOf: Record<string, number> = {};
  base.fields.forEach((f, i) => {
    if (f && colOf[f] === undefined) colOf[f] = i;
  });
  return { ...base, colOf };
}

const KIND: Record<CsvKind, ItemFailure['kind']> = { events: 'event', venues: 'venue', organizers: 'organizer' };

/** Venue/organizer identity from a name: case, spacing and Unicode forms do not make a new one. */
export function normalizeName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

class Row {
  readonly errors: string[] = [];
  readonly ctx: RowContext;
  readonly cells: string[];
  constructor(ctx: RowContext, cells: string[]) {
    this.ctx = ctx;
    this.cells = cells;
  }

  has(field: string): boolean {
    return this.ctx.colOf[field] !== undefined;
  }
  get(field: string): string {
    const i = this.ctx.colOf[field];
    return i === undefined ? '' : (this.cells[i] ?? '').trim();
  }
  label(field: string): string {
    const i = this.ctx.colOf[field];
    return i === undefined ? field : this.ctx.labels[i]!;
  }
  fail(field: string, what: string): undefined {
    this.errors.push(`${this.label(field)}: ${what}`);
    return undefined;
  }
  text(field: string): string | undefined {
    return this.get(field) || undefined;
  }
  bool(field: string): boolean | undefined {
    const r = parseBoolean(this.get(field));
    return r.ok ? r.value : this.fail(field, r.reason);
  }
  url(field: string, allowId = false): string | undefined {
    const v = this.get(field);
    if (!v) return undefined;
    if (allowId && /^\d+$/.test(v)) return v;
    const candidate = /^www\./i.test(v) ? `http://${v}` : v;
    if (/^https?:\/\//i.test(candidate) && URL.canParse(candidate)) return candidate;
    return this.fail(field, `'${v}' is not a web address (http:// or https://)${allowId ? ' or an attachment id' : ''}`);
  }
  email(field: string): string | undefined {
    const v = this.get(field).replace(/^mailto:/i, '');
    if (!v) return undefined;
    if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) return v;
    return this.fail(field, `'${v}' is not an e-mail address`);
  }
  postStatus(field: string): { status?: string; cancelled?: boolean } {
    const r = parseStatus(this.get(field));
    if (!r.ok) {
      this.fail(field, r.reason);
      return {};
    }
    return r.value;
  }
}

export type StatusResult = { ok: true; value: { status?: string; cancelled?: boolean } } | { ok: false; reason: string };

export function parseStatus(cell: string | undefined): StatusResult {
  const v = (cell ?? '').trim().toLowerCase();
  if (!v) return { ok: true, value: {} };
  if (['publish', 'published', 'public', 'live'].includes(v)) return { ok: true, value: { status: 'publish' } };
  if (['draft', 'pending', 'private', 'future'].includes(v)) return { ok: true, value: { status: v } };
  if (v === 'cancelled' || v === 'canceled') return { ok: true, value: { cancelled: true } };
  if (['confirmed', 'tentative', 'scheduled'].includes(v)) return { ok: true, value: {} };
  return { ok: false, reason: `'${cell!.trim()}' is not a post status (publish, draft, pending, private, future or cancelled)` };
}

/** Names in one cell. See the header comment for the separator rule. */
export function splitTerms(cell: string, fileDelimiter: string): string[] {
  if (!cell.trim()) return [];
  const sep = fileDelimiter === ';' ? ',' : cell.includes(';') ? ';' : ',';
  return dedupe(cell.split(sep));
}

function dedupe(parts: string[]): string[] {
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
function compact<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (obj[k] !== undefined) out[k] = obj[k];
  return out as T;
}

function joinAddress(a: string | undefined, b: string | undefined): string | undefined {
  return a && b ? `${a}, ${b}` : a || b || undefined;
}

function failure(ctx: RowContext, cells: string[], line: number, reason: string): Normalized<AnyDraft> {
  return { ok: false, failure: { kind: KIND[ctx.kind], origin: { source: ctx.sourceName, line }, reason, raw: cells } };
}

/** zod issues → `<column>: <message>`, naming the column the field came from. */
function zodReason(row: Row, error: z.ZodError): string {
  const fieldOf: Record<string, string> = { organizers: 'organizer', start_date: 'start_date', end_date: 'end_date' };
  return error.issues
    .map((issue) => {
      const top = String(issue.path[0] ?? 'row');
      const field = fieldOf[top] ?? top;
      return `${row.has(field) ? row.label(field) : field}: ${issue.message}`;
    })
    .join('; ');
}

export function normalizeRow(ctx: RowContext, cells: string[], line: number): Normalized<AnyDraft> {
  let values = cells;
  if (cells.length < ctx.width) {
    // Spreadsheet tools drop trailing empty cells (The Events Calendar's own export does): the
    // missing cells are empty ones. Said once per run (shortRowsWarning), not per row.
    values = [...cells, ...new Array<string>(ctx.width - cells.length).fill('')];
  } else if (cells.length > ctx.width) {
    const extraBlank = cells.slice(ctx.width).every((c) => c.trim() === '');
    if (!extraBlank) {
      return failure(ctx, cells, line, `row: has ${cells.length} fields, the ${ctx.widthFrom} has ${ctx.width}`);
    }
    values = cells.slice(0, ctx.width); // trailing empty cells (a trailing delimiter) are harmless
  }
  const row = new Row(ctx, values);
  let key: string | undefined;
  if (ctx.keyIndex !== undefined) {
    key = (values[ctx.keyIndex] ?? '').trim();
    if (!key) row.errors.push(`${ctx.labels[ctx.keyIndex]}: is empty (the key column identifies the row)`);
  }
  let candidate: Record<string, unknown> | undefined;
  if (ctx.kind === 'events') candidate = eventFields(row, key, line);
  else if (ctx.kind === 'venues') candidate = venueFields(row, key);
  else candidate = organizerFields(row, key);
  if (row.errors.length || !candidate) return failure(ctx, cells, line, row.errors.join('; ') || 'row: unreadable');

  const schema = ctx.kind === 'events' ? EventDraft : ctx.kind === 'venues' ? VenueDraft : OrganizerDraft;
  const parsed = schema.safeParse(candidate);
  if (!parsed.success) return failure(ctx, cells, line, zodReason(row, parsed.error));
  return { ok: true, draft: parsed.data as AnyDraft };
}

interface Endpoint {
  date: YMD;
  time?: HMS;
  offsetMinutes?: number;
}

/** Date (+ time) of one end of the event; undefined when both cells are empty, null after a failure. */
function readEndpoint(row: Row, dateField: string, timeField: string, order: DateOrder | undefined): Endpoint | undefined | null {
  const dateCell = row.get(dateField);
  const timeCell = row.get(timeField);
  let date: DateTimeValue | undefined;
  if (dateCell) {
    const r = parseDateTime(dateCell, order);
    if (!r.ok) {
      row.fail(dateField, r.reason);
      return null;
    }
    date = r.value;
  }
  let time = date?.time;
  let offsetMinutes = date?.offsetMinutes;
  if (timeCell) {
    const t = parseTime(timeCell);
    if (!t.ok) {
      row.fail(timeField, t.reason);
      return null;
    }
    time = t.value.time;
    if (t.value.offsetMinutes !== undefined) offsetMinutes = t.value.offsetMinutes;
  }
  if (!date) {
    // A time with no date: only meaningful for the end (same day as the start).
    return time ? { date: { y: 0, m: 0, d: 0 }, time, ...(offsetMinutes !== undefined ? { offsetMinutes } : {}) } : undefined;
  }
  return { date: date.date, ...(time ? { time } : {}), ...(offsetMinutes !== undefined ? { offsetMinutes } : {}) };
}

/** An endpoint with its own offset → wall time in the row's zone. */
function inZone(p: Endpoint, zone: string): { date: YMD; time: HMS } {
  if (p.offsetMinutes === undefined || !p.time) return { date: p.date, time: p.time! };
  const w = wallTimeIn(instantOf(p.date, p.time, p.offsetMinutes), zone);
  return { date: { y: w.y, m: w.m, d: w.d }, time: { h: w.h, mi: w.mi, s: w.s } };
}

const MIDNIGHT: HMS = { h: 0, mi: 0, s: 0 };
const END_OF_DAY: HMS = { h: 23, mi: 59, s: 59 };

function eventDates(row: Row, timezone: string): { all_day: boolean; start_date: string; end_date: string } | undefined {
  const order = row.ctx.order;
  if (!row.get('start_date')) {
    return row.fail('start_date', row.get('start_time') ? 'is empty (a time alone is not enough)' : 'is empty (a start date is required)');
  }
  const start = readEndpoint(row, 'start_date', 'start_time', order);
  const end = readEndpoint(row, 'end_date', 'end_time', order);
  if (!start || end === null) return undefined;
  const endHasDate = !!row.get('end_date');
  const allDayFlag = row.bool('all_day');

  if (allDayFlag === true || !start.time) {
    if (allDayFlag !== true && end?.time && !start.time) {
      return row.fail('start_date', 'has no time but the end has one');
    }
    let last = endHasDate && end ? end.date : start.date;
    if (endHasDate && end?.time && compareTimes(end.time, MIDNIGHT) === 0 && compareDates(last, start.date) > 0) {
      last = addDays(last, -1); // exclusive end (Outlook exports all-day events ending at 00:00 next day)
    }
    if (compareDates(last, start.date) < 0) {
      return row.fail(row.has('end_date') ? 'end_date' : 'start_date', 'the end date is before the start date');
    }
    return { all_day: true, start_date: formatWall(start.date, MIDNIGHT), end_date: formatWall(last, END_OF_DAY) };
  }

  const s = inZone(start as Endpoint & { time: HMS }, timezone);
  let e: { date: YMD; time: HMS };
  if (end && endHasDate) {
    const endTime = end.time ?? (compareDates(end.date, start.date) === 0 ? start.time : END_OF_DAY);
    e = inZone({ ...end, time: endTime }, timezone);
  } else if (end?.time) {
    // End time alone: same day as the start, or the next one when it is earlier (overnight).
    const sameDay = inZone({ date: start.date, time: end.time, ...(end.offsetMinutes !== undefined ? { offsetMinutes: end.offsetMinutes } : {}) }, timezone);
    e = compareTimes(end.time, start.time) < 0 && end.offsetMinutes === undefined ? { date: addDays(sameDay.date, 1), time: sameDay.time } : sameDay;
  } else {
    e = s;
  }
  const startWall = formatWall(s.date, s.time);
  const endWall = formatWall(e.date, e.time);
  if (endWall < startWall) {
    return row.fail(row.has('end_date') && endHasDate ? 'end_date' : 'end_time', `the end (${endWall}) is before the start (${startWall})`);
  }
  return { all_day: false, start_date: startWall, end_date: endWall };
}

function eventCost(row: Row): string | undefined {
  const cost = row.get('cost');
  if (!cost) return undefined;
  let out = cost;
  const symbol = row.get('currency_symbol');
  if (symbol && !cost.includes(symbol)) {
    const position = row.get('currency_position').toLowerCase();
    if (position && !['prefix', 'before', 'suffix', 'after', 'postfix'].includes(position)) {
      row.fail('currency_position', `'${row.get('currency_position')}' is not prefix or suffix`);
    }
    out = ['suffix', 'after', 'postfix'].includes(position) ? `${cost}${symbol}` : `${symbol}${cost}`;
  }
  const code = row.get('currency_code');
  if (code && !out.toUpperCase().includes(code.toUpperCase())) out = `${out} ${code}`;
  return out;
}

const VENUE_DETAILS = [
  'venue_description', 'venue_address', 'venue_address2', 'venue_city', 'venue_country', 'venue_province',
  'venue_state', 'venue_stateprovince', 'venue_zip', 'venue_phone', 'venue_website',
];
const ORGANIZER_DETAILS = ['organizer_email', 'organizer_phone', 'organizer_website'];

function eventVenue(row: Row): VenueDraft | undefined {
  const name = row.get('venue');
  if (!name) {
    const given = VENUE_DETAILS.find((f) => row.get(f));
    return given ? row.fail(given, 'is given without a venue name') : undefined;
  }
  return compact({
    identity: normalizeName(name),
    venue: name,
    description: row.text('venue_description'),
    address: joinAddress(row.text('venue_address'), row.text('venue_address2')),
    city: row.text('venue_city'),
    country: row.text('venue_country'),
    province: row.text('venue_province'),
    state: row.text('venue_state'),
    stateprovince: row.text('venue_stateprovince'),
    zip: row.text('venue_zip'),
    phone: row.text('venue_phone'),
    website: row.url('venue_website'),
  }) as VenueDraft;
}

function eventOrganizers(row: Row): OrganizerDraft[] {
  const names = dedupe(row.get('organizer').split(';'));
  const given = ORGANIZER_DETAILS.filter((f) => row.get(f));
  if (!names.length) {
    if (given.length) row.fail(given[0]!, 'is given without an organizer name');
    return [];
  }
  if (names.length > 1) {
    if (given.length) row.fail(given[0]!, `one value for ${names.length} organizers`);
    return names.map((organizer) => ({ identity: normalizeName(organizer), organizer }));
  }
  return [
    compact({
      identity: normalizeName(names[0]!),
      organizer: names[0]!,
      email: row.email('organizer_email'),
      phone: row.text('organizer_phone'),
      website: row.url('organizer_website'),
    }) as OrganizerDraft,
  ];
}

function eventFields(row: Row, key: string | undefined, line: number): Record<string, unknown> | undefined {
  const { ctx } = row;
  const title = row.text('title');
  if (!title) row.fail('title', 'is empty (a title is required)');
  const zone = parseZone(row.get('timezone'));
  if (!zone.ok) row.fail('timezone', zone.reason);
  const timezone = (zone.ok && zone.value) || ctx.defaultTimezone;
  const dates = eventDates(row, timezone);
  const { status: rowStatus, cancelled } = row.postStatus('status');
  const isPrivate = row.bool('private');
  const terms = (field: string): TermDraft[] => splitTerms(row.get(field), ctx.delimiter).map((name) => ({ name }));
  // Markup and entities are cleaned once, for the whole draft (src/model/clean.ts); the identity
  // keeps the title as written so slugs stay what they were. A row without a zone is identified by
  // its wall time alone, whatever zone it is read in (the site's, or --default-tz), so correcting
  // the zone moves the events instead of duplicating them; its marker stays `UTC`, the default
  // these rows had before, so their slugs do not change.
  const draft = cleanEvent(compact({
    identity: key !== undefined ? `key:${key}` : dates && title ? `${title}|${dates.start_date}|${(zone.ok && zone.value) || 'UTC'}` : '',
    title,
    description: row.text('description'),
    excerpt: row.text('excerpt'),
    status: isPrivate ? 'private' : (rowStatus ?? ctx.status),
    timezone,
    all_day: dates?.all_day,
    start_date: dates?.start_date,
    end_date: dates?.end_date,
    image: row.url('image', true),
    cost: eventCost(row),
    website: row.url('website'),
    show_map: row.bool('show_map'),
    show_map_link: row.bool('show_map_link'),
    hide_from_listings: row.bool('hide_from_listings'),
    sticky: row.bool('sticky'),
    featured: row.bool('featured'),
    categories: terms('categories'),
    tags: terms('tags'),
    venue: eventVenue(row),
    organizers: eventOrganizers(row),
    cancelled: cancelled ?? false,
    slug: row.text('slug'),
    origin: { source: ctx.sourceName, line },
  }));
  if (title && !draft.title) row.fail('title', 'has no text once markup is removed (a title is required)');
  return row.errors.length ? undefined : draft;
}

function venueFields(row: Row, key: string | undefined): Record<string, unknown> | undefined {
  const name = row.get('venue');
  if (!name) row.fail('venue', 'is empty (a venue name is required)');
  const { status } = row.postStatus('status');
  const draft = compact({
    identity: key !== undefined ? `key:${key}` : normalizeName(name),
    venue: name,
    description: row.text('description'),
    address: joinAddress(row.text('address'), row.text('address2')),
    city: row.text('city'),
    country: row.text('country'),
    province: row.text('province'),
    state: row.text('state'),
    stateprovince: row.text('stateprovince'),
    zip: row.text('zip'),
    phone: row.text('phone'),
    website: row.url('website'),
    image: row.url('image', true),
    show_map: row.bool('show_map'),
    show_map_link: row.bool('show_map_link'),
    status: status ?? row.ctx.status,
    slug: row.text('slug'),
  });
  const clean = cleanVenue(draft);
  if (name && !clean) row.fail('venue', 'has no text once markup is removed (a venue name is required)');
  return row.errors.length ? undefined : clean;
}

function organizerFields(row: Row, key: string | undefined): Record<string, unknown> | undefined {
  const name = row.get('organizer');
  if (!name) row.fail('organizer', 'is empty (an organizer name is required)');
  const { status } = row.postStatus('status');
  const draft = compact({
    identity: key !== undefined ? `key:${key}` : normalizeName(name),
    organizer: name,
    description: row.text('description'),
    email: row.email('email'),
    phone: row.text('phone'),
    website: row.url('website'),
    image: row.url('image', true),
    status: status ?? row.ctx.status,
    slug: row.text('slug'),
  });
  const clean = cleanOrganizer(draft);
  if (name && !clean) row.fail('organizer', 'has no text once markup is removed (an organizer name is required)');
  return row.errors.length ? undefined : clean;
}
