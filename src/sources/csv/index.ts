/**
 * CSV source: spreadsheets of events, venues or organizers → drafts and row failures.
 *
 *   const inspection = await inspectCsv(open, opts);   // pass 1: decide encoding, header, mapping, date order
 *   for await (const item of readCsv(open, opts, inspection)) …   // pass 2: one item per data row
 *   for await (const items of readCsvBatches(open, opts, inspection)) …   // or the same items, a parsed chunk at a time
 *
 * `open` is called once per pass and must return a fresh byte stream. Whole-file problems throw
 * CsvRefusedError; row problems come back as failures with the row's physical line number.
 */
export { CsvRefusedError } from './errors.ts';
export { inspectCsv, shortRowsWarning } from './inspect.ts';
export { readCsv, readCsvBatches } from './read.ts';
export { rejectsWidth, writeRejectsCsv } from './rejects.ts';
export type { CsvInspection, CsvItem, CsvKind, CsvOptions } from './types.ts';
