import { parseDateFormat } from './dates.ts';
import { SeenIdentities } from './dedupe.ts';
import { CsvRefusedError } from './errors.ts';
import { columnLabels, resolveColumn } from './headers.ts';
import { checkOptions, openChecked } from './inspect.ts';
import { isBlank } from './parse.ts';
import { normalizeRow } from './normalize.ts';
import { makeRowContext } from './row.ts';
import type { CsvInspection, CsvItem, CsvOptions } from './types.ts';

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
export async function* readCsv(
  open: () => NodeJS.ReadableStream,
  opts: CsvOptions,
  inspection: CsvInspection,
): AsyncGenerator<CsvItem, void, undefined> {
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
  const ctx = makeRowContext({
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

  const rs = await openChecked(open, opts, {
    encoding: inspection.encoding,
    delimiter: inspection.delimiter,
    ...(inspection.newline ? { newline: inspection.newline } : {}),
  });
  const seen = new SeenIdentities();
  try {
    for await (const rec of rs.records) {
      if (rec.line <= inspection.headerLine || isBlank(rec.fields)) continue;
      let result = normalizeRow(ctx, rec.fields, rec.line);
      if (result.ok) {
        const earlier = seen.firstSeen(result.draft.identity, rec.line);
        if (earlier !== undefined) {
          const kind = opts.kind === 'events' ? 'event' : opts.kind === 'venues' ? 'venue' : 'organizer';
          const why = keyIndex !== undefined ? `same ${labels[keyIndex]}` : opts.kind === 'events' ? 'same title, start and time zone' : 'same name';
          result = {
            ok: false,
            failure: {
              kind,
              origin: { source: file, line: rec.line },
              reason: `row: duplicate of line ${earlier} (${why})`,
              raw: rec.fields,
            },
          };
        }
      }
      yield { line: rec.line, raw: rec.fields, result };
    }
  } finally {
    await rs.records.return();
  }
}
