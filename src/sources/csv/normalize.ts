import type { z } from 'zod';
import type { Normalized } from '../../model/draft.ts';
import { checkDraft } from './checks.ts';
import { eventFields } from './event-row.ts';
import type { FieldOf } from './fields.ts';
import { organizerFields, venueFields } from './linked-row.ts';
import { ITEM_KIND, Row, type RowContext } from './row.ts';
import type { AnyDraft, CsvKind } from './types.ts';

/**
 * One CSV row → one draft or one failure. Every problem on the row is collected (not just the
 * first) and reported as `<column as written in the file>: <what is wrong>`, joined by `; `.
 * The per-kind builders are event-row.ts and linked-row.ts; the draft schemas have the last word.
 */

type Builder<K extends CsvKind> = (row: Row<FieldOf<K>>, key: string | undefined, line: number) => Record<string, unknown> | undefined;

const BUILDERS: { [K in CsvKind]: Builder<K> } = {
  events: eventFields,
  venues: venueFields,
  organizers: organizerFields,
};

function failure(ctx: RowContext, cells: string[], line: number, reason: string): Normalized<AnyDraft> {
  return { ok: false, failure: { kind: ITEM_KIND[ctx.kind], origin: { source: ctx.sourceName, line }, reason, raw: cells } };
}

/** Excel's and LibreOffice's column limit: a row with more fields is not a spreadsheet's row. */
export const MAX_ROW_FIELDS = 16_384;

/**
 * A row wider than any spreadsheet (a file of 45 M commas is one row of 45 M fields): failed,
 * naming its line, with only its first `width` cells kept. Kept whole, its cells went into the
 * chunk (Redis, for a queued run), the run's rejected rows and the rejects file, where every
 * rejected row was padded to its width.
 */
export function tooWideRow(ctx: RowContext, cells: string[], line: number): { raw: string[]; result: Normalized<AnyDraft> } | undefined {
  if (cells.length <= MAX_ROW_FIELDS) return undefined;
  const raw = cells.slice(0, ctx.width);
  const reason = `row: has ${cells.length} fields, more than ${MAX_ROW_FIELDS} (no spreadsheet has more columns); only its first ${ctx.width} are kept`;
  return { raw, result: failure(ctx, raw, line, reason) };
}

/** zod issues → `<column>: <message>`, naming the column the field came from. */
function zodReason(row: Row<string>, error: z.ZodError): string {
  const fieldOf: Record<string, string> = { organizers: 'organizer', start_date: 'start_date', end_date: 'end_date' };
  return error.issues
    .map((issue) => {
      const top = String(issue.path[0] ?? 'row');
      const field = fieldOf[top] ?? top;
      return `${row.has(field) ? row.label(field) : field}: ${issue.message}`;
    })
    .join('; ');
}

/** The row's cells at the header's width, or the reason it cannot be read. */
function fitWidth(ctx: RowContext, cells: string[]): string[] | { reason: string } {
  if (cells.length < ctx.width) {
    // Spreadsheet tools drop trailing empty cells (The Events Calendar's own export does): the
    // missing cells are empty ones. Said once per run (shortRowsWarning), not per row.
    return [...cells, ...new Array<string>(ctx.width - cells.length).fill('')];
  }
  if (cells.length > ctx.width) {
    const extraBlank = cells.slice(ctx.width).every((c) => c.trim() === '');
    if (!extraBlank) return { reason: `row: has ${cells.length} fields, the ${ctx.widthFrom} has ${ctx.width}` };
    return cells.slice(0, ctx.width); // trailing empty cells (a trailing delimiter) are harmless
  }
  return cells;
}

export function normalizeRow(ctx: RowContext, cells: string[], line: number): Normalized<AnyDraft> {
  const values = fitWidth(ctx, cells);
  if (!Array.isArray(values)) return failure(ctx, cells, line, values.reason);
  const row = new Row<string>(ctx, values);
  let key: string | undefined;
  if (ctx.keyIndex !== undefined) {
    key = (values[ctx.keyIndex] ?? '').trim();
    if (!key) row.errors.push(`${ctx.labels[ctx.keyIndex]}: is empty (the key column identifies the row)`);
  }
  const candidate = (BUILDERS[ctx.kind] as Builder<CsvKind>)(row, key, line);
  if (row.errors.length || !candidate) return failure(ctx, cells, line, row.errors.join('; ') || 'row: unreadable');
  const parsed = checkDraft(ctx.kind, candidate);
  if (!parsed.success) return failure(ctx, cells, line, zodReason(row, parsed.error));
  return { ok: true, draft: parsed.data };
}
