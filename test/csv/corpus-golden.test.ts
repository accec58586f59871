import { describe, expect, it } from 'vitest';
import { CsvRefusedError, type CsvItem, type CsvOptions } from '../../src/sources/csv/index.ts';
import { capped, expectJsonGolden, goldenInputs, UPDATING } from '../support/golden.ts';
import { DATA_ROWS, MAPPINGS, collect, corpusOpen, opts } from './helpers.ts';

/**
 * Per-file expected output for every corpus CSV file (test/fixtures/third-party/corpus/golden/csv/<file>.json): read as a user
 * would first try it (no mapping), and, for the files that need one, with the `--map` of
 * helpers.ts. Each read is the inspection and every row's draft or failure (the first rows in
 * full, all of them by count and digest), or the refusal (reason and hint), so a refused file
 * cannot pass unnoticed. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/csv/corpus-golden.test.ts`
 * and review the diff: it is the behaviour change.
 */
const GOLDEN = new URL('../fixtures/third-party/corpus/golden/csv/', import.meta.url);

/** A row's outcome; `origin.source` (the file name in every item) is left out. */
function outcome(item: CsvItem) {
  const strip = <T extends { origin: { source: string } }>(x: T) => {
    const { source: _source, ...origin } = x.origin;
    return { ...x, origin };
  };
  return item.result.ok ? { line: item.line, draft: strip(item.result.draft as { origin: { source: string } }) } : { line: item.line, failure: strip(item.result.failure) };
}

async function read(name: string, o: CsvOptions) {
  try {
    const c = await collect(corpusOpen(name), o);
    return { inspection: c.inspection, rows: capped(c.items.map(outcome)) };
  } catch (error) {
    if (error instanceof CsvRefusedError) return { refused: { reason: error.reason, hint: error.hint } };
    throw error;
  }
}

describe('CSV corpus goldens', () => {
  const files = Object.keys(DATA_ROWS).sort();

  it('has one golden per corpus file and none for a file that is gone', () => {
    if (!UPDATING) expect(goldenInputs(GOLDEN)).toEqual(files);
  });

  for (const name of files) {
    it(name, async () => {
      const mapping = MAPPINGS[name];
      const golden = {
        file: name,
        withoutMapping: await read(name, opts({ sourceName: name })),
        ...(mapping ? { mapping, withMapping: await read(name, opts({ sourceName: name, mapping })) } : {}),
      };
      expectJsonGolden(new URL(`${name}.json`, GOLDEN), golden);
    });
  }
});
