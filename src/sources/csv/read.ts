import type { Normalized } from '../../model/draft.ts';
import { parseDateFormat } from './dates.ts';
import { SeenIdentities } from './dedupe.ts';
import { CsvRefusedError } from './errors.ts';
import { columnLabels, resolveColumn } from './headers.ts';
import { checkOptions, openChecked } from './inspect.ts';
import { isBlank, type RawRecord, type RecordStream } from './parse.ts';
import { normalizeRow } from './normalize.ts';
import { ITEM_KIND, makeRowContext, type RowContext } from './row.ts';
import type { AnyDraft, CsvInspection, CsvItem, CsvOptions } from './types.ts';

/**
 * The reading pass: streams the file again with what inspectCsv decided and yields one item per
 * data row, in file order, a parsed chunk of rows at a time (nothing more is held; CsvItems).
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

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The items of one parsed chunk of rows at a time, handed out one by one: an async generator's
 * `yield` per row cost about 0.3 µs more than a settled promise (measured), and its caller awaits
 * every row. Rows are normalized in file order, a chunk when the previous one is used up; a row
 * that throws ends the read after the rows before it, as a generator would. Stopping early
 * (`return`, a `break` in `for await`) closes the file.
 */
class CsvItems implements AsyncIterableIterator<CsvItem, undefined, undefined> {
  private items: CsvItem[] = [];
  private at = 0;
  private thrown: { error: unknown } | undefined;
  private rs: RecordStream | undefined;
  private ctx: RowContext | undefined;
  private readonly seen = new SeenIdentities();
  private finished = false;
  private readonly open: () => NodeJS.ReadableStream;
  private readonly opts: CsvOptions;
  private readonly inspection: CsvInspection;

  constructor(open: () => NodeJS.ReadableStream, opts: CsvOptions, inspection: CsvInspection) {
    this.open = open;
    this.opts = opts;
    this.inspection = inspection;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<CsvItem, undefined>> {
    if (this.at < this.items.length) return Promise.resolve({ done: false, value: this.items[this.at++]! });
    return this.fill();
  }

  async return(): Promise<IteratorResult<CsvItem, undefined>> {
    this.finished = true;
    this.items = [];
    await this.rs?.batches.return();
    return DONE;
  }

  private async fill(): Promise<IteratorResult<CsvItem, undefined>> {
    try {
      for (;;) {
        if (this.thrown) throw this.thrown.error;
        if (this.finished) return DONE;
        const next = await (await this.records()).next();
        if (next.done) return await this.return();
        this.items = this.normalized(next.value);
        this.at = 0;
        if (this.items.length) return { done: false, value: this.items[this.at++]! };
      }
    } catch (error) {
      this.thrown = undefined;
      await this.return();
      throw error;
    }
  }

  /** The file's record batches, opened on the first call (so a refusal rejects the first `next`). */
  private async records(): Promise<AsyncGenerator<RawRecord[], void, undefined>> {
    if (!this.rs) {
      const { opts, inspection } = this;
      this.ctx = contextFor(opts, inspection);
      this.rs = await openChecked(this.open, opts, {
        encoding: inspection.encoding,
        delimiter: inspection.delimiter,
        ...(inspection.newline ? { newline: inspection.newline } : {}),
      });
    }
    return this.rs.batches;
  }

  private normalized(batch: RawRecord[]): CsvItem[] {
    const ctx = this.ctx!;
    const out: CsvItem[] = [];
    try {
      for (const rec of batch) {
        if (rec.line <= this.inspection.headerLine || isBlank(rec.fields)) continue;
        let result = normalizeRow(ctx, rec.fields, rec.line);
        if (result.ok) {
          const earlier = this.seen.firstSeen(result.draft.identity, rec.line);
          if (earlier !== undefined) result = duplicate(ctx, rec, earlier);
        }
        out.push({ line: rec.line, raw: rec.fields, result });
      }
    } catch (error) {
      this.thrown = { error }; // after the rows already normalized
    }
    return out;
  }
}

export function readCsv(open: () => NodeJS.ReadableStream, opts: CsvOptions, inspection: CsvInspection): AsyncIterableIterator<CsvItem, undefined, undefined> {
  return new CsvItems(open, opts, inspection);
}
