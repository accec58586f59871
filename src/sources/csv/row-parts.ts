import { memoizedBy, memoizedByStrings } from '../../util/memo.ts';
import type { Row, RowContext } from './row.ts';

/**
 * Parts of a row that many rows repeat, built once per distinct cells they read, per file. A file
 * names the same few venues, organizers and categories on row after row, and building one (split,
 * clean, check its links, compact) cost more than a third of an event row's time (profiled on
 * bench/csv-read-child.ts); looking it up costs a key and a Map read.
 *
 * A part is its value and the problems found building it: a row that repeats the cells gets the
 * same value and the same problems, added to its own in the order they were found, so its reason
 * reads exactly as if the part had been built for it. That holds because a builder reads nothing
 * but the cells of the fields it is registered with (and the file's labels, fixed per file).
 * Values are shared between rows, so they are frozen; the draft schemas build each row's draft
 * afresh from them (zod's output is never its input: src/sources/csv/checks.ts).
 *
 * Kept by src/util/memo.ts's memoizedBy (one column) or memoizedByStrings (several, looked up cell by
 * cell): at most MAX_PARTS per part (then cleared), and cells longer than MAX_KEY_CHARS together are
 * never kept.
 */

const MAX_PARTS = 1024;
const MAX_KEY_CHARS = 400;

interface Part {
  value: unknown;
  errors: readonly string[];
}

/** A part's builder for one file, remembered by the cells of the columns it reads. */
export type PartTable = (row: Row<string>) => Part;

function tableOf<F extends string>(ctx: RowContext, name: string, fields: readonly F[], build: (row: Row<F>) => unknown): PartTable {
  let table = ctx.parts.get(name);
  if (!table) {
    const columns = fields.flatMap((f) => {
      const c = ctx.colOf.get(f);
      return c === undefined ? [] : [c];
    });
    // The problems found building it are taken off the row that built it: every row, that one
    // included, gets them from the part (sharedPart).
    const made = (row: Row<string>): Part => {
      const before = row.errors.length;
      const value = deepFreeze(build(row as Row<F>));
      return { value, errors: row.errors.splice(before) };
    };
    table =
      columns.length > 1
        ? memoizedByStrings(columns.length, (row: Row<string>, keys) => cellsOf(row.cells, columns, keys), made, MAX_PARTS, MAX_KEY_CHARS)
        : memoizedBy((row: Row<string>) => (columns.length ? (row.cells[columns[0]!] ?? '') : ''), made, MAX_PARTS, MAX_KEY_CHARS);
    ctx.parts.set(name, table);
  }
  return table;
}

/** The cells of `columns`, into `out`: the part's key, looked up cell by cell (memoizedByStrings). */
function cellsOf(cells: readonly string[], columns: number[], out: string[]): void {
  for (let i = 0; i < columns.length; i++) out[i] = cells[columns[i]!] ?? '';
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * `build(row)`, or the part it gave for a row with the same cells in `fields` (see the header).
 * `name` names the part; a builder must read no cell outside `fields`.
 */
export function sharedPart<F extends string, T>(row: Row<F>, name: string, fields: readonly F[], build: (row: Row<F>) => T): T {
  const part = tableOf(row.ctx, name, fields, build)(row as Row<string>);
  for (const e of part.errors) row.errors.push(e);
  return part.value as T;
}
