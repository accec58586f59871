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
