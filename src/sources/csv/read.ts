import type { Normalized } from '../../model/draft.ts';
import { parseDateFormat } from './dates.ts';
import { SeenIdentities } from './dedupe.ts';
import { CsvRefusedError } from './errors.ts';
import { columnLabels, resolveColumn } from './headers.ts';
import { checkOptions, openChecked } from './inspect.ts';
import { isBlank, type RawRecord } from './parse.ts';
import { normalizeRow, tooWideRow } from './normalize.ts';
import { ITEM_KIND, makeRowContext, type RowContext } from './row.ts';
import type { AnyDraft, CsvInspection, CsvItem, CsvOptions } from './types.ts';

/**
 * The reading pass: streams the file again with what inspectCsv decided and yields one item per
 * data row, in file order, as the rows are parsed (nothing is collected).
 *
 * Duplicate identities in one file (two rows with the same key, or the same title + start + zone
 * when there is no key) would become one site event, the later row silently overwriting the
 * earlier one, or race when chunks are written in parallel. The second row is therefore a failure
 * naming the first line. This keeps ~24 bytes per row (dedupe.ts: ~2.4 MB per 100k rows), the one
 * thing that grows with the file.
 */
/** What every row needs to know, from the options and what inspectCsv decided. */
function contextFor(opts: CsvOptions, inspection: CsvInspection): RowContext {
  const checked = checkOptions(opts);
  const file = opts.sourceName;
  const headerless = inspection.headerLine === 0;
  const width = inspection.headers.length;
  const labels = columnLabels(headerless ? null : inspection.headers, width);
  const fields = inspection.fields ?? labels.map((l) => inspection.mapping[l] ?? null);
  const order = inspection.dateFormat ? parseDateFormat(inspection.dateFormat) : undefined;
  if (inspection.dateFormat && !order) throw new CsvRefusedError(file, `unknown date format '${inspection.dateFormat}'`);
  let keyIndex: number | undefined;
  if (opts.key !== undefined) {
    keyIndex = resolveColumn(opts.key, headerless ? null : inspection.headers, width);
    if (keyIndex === undefined) throw new CsvRefusedError(file, `key column '${opts.key}' is not in this file`);
  }
  return makeRowContext({
    kind: opts.kind,
    sourceName: file,
    fields,
    labels,
    width,
    widthFrom: headerless ? 'first row' : 'header',
    ...(order ? { order } : {}),
    defaultTimezone: checked.defaultTimezone,
    ...(checked.status ? { status: checked.status } : {}),
    ...(keyIndex !== undefined ? { keyIndex } : {}),
    delimiter: inspection.delimiter,
  });
}

function duplicate(ctx: RowContext, rec: RawRecord, earlier: number): Normalized<AnyDraft> {
  const why = ctx.keyIndex !== undefined ? `same ${ctx.labels[ctx.keyIndex]}` : ctx.kind === 'events' ? 'same title, start and time zone' : 'same name';
  return {
    ok: false,
    failure: { kind: ITEM_KIND[ctx.kind], origin: { source: ctx.sourceName, line: rec.line }, reason: `row: duplicate of line ${earlier} (${why})`, raw: rec.fields },
  };
}

/**
 * The reading pass, one array of items per parsed text chunk (tens of rows): a caller that handles
 * rows in groups (src/runs/import-csv.ts) takes them without an await per row. An async generator
 * pays a promise and a microtask for every value it yields, about 1 µs, a few percent of a row's
 * CPU (profiled on bench/csv-read-child.ts).
 */
export async function* readCsvBatches(
  open: () => NodeJS.ReadableStream,
  opts: CsvOptions,
  inspection: CsvInspection,
): AsyncGenerator<CsvItem[], void, undefined> {
  const ctx = contextFor(opts, inspection);
  const rs = await openChecked(open, opts, {
    encoding: inspection.encoding,
    delimiter: inspection.delimiter,
    ...(inspection.newline ? { newline: inspection.newline } : {}),
  });
  const seen = new SeenIdentities();
  try {
    for await (const batch of rs.batches) {
      const items: CsvItem[] = [];
      for (const rec of batch) {
        if (rec.line <= inspection.headerLine) continue;
        const wide = tooWideRow(ctx, rec.fields, rec.line);
        if (wide) {
          items.push({ line: rec.line, ...wide });
          continue;
        }
        if (isBlank(rec.fields)) continue;
        const floatingBefore = ctx.floatingRows;
        let result = normalizeRow(ctx, rec.fields, rec.line);
        if (result.ok) {
          const earlier = seen.firstSeen(result.draft.identity, rec.line);
          if (earlier !== undefined) result = duplicate(ctx, rec, earlier);
        }
        const item: CsvItem = { line: rec.line, raw: rec.fields, result };
        if (result.ok && ctx.floatingRows !== floatingBefore) item.floating = true;
        items.push(item);
      }
      if (items.length) yield items;
    }
  } finally {
    await rs.batches.return();
  }
}

/** readCsvBatches one item at a time. */
export async function* readCsv(
  open: () => NodeJS.ReadableStream,
  opts: CsvOptions,
  inspection: CsvInspection,
): AsyncGenerator<CsvItem, void, undefined> {
  const batches = readCsvBatches(open, opts, inspection);
  try {
    for await (const items of batches) yield* items;
  } finally {
    await batches.return();
  }
}
