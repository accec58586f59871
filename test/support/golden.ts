import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/**
 * JSON golden files: what a parser or normalizer produced for a fixed input, kept in the repository
 * so a change of behaviour shows as a reviewed diff. `UPDATE_GOLDEN=1 npx vitest run <test file>`
 * rewrites them (the same variable as the export's ICS goldens, test/export/support.ts).
 */
export const UPDATING = process.env.UPDATE_GOLDEN === '1';

/** Drafts written out in full per golden file; the rest are covered by their count and digest. */
export const GOLDEN_DRAFTS_SHOWN = 25;

/** The value as JSON would keep it (undefined fields dropped), so it compares equal to a parsed golden. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Compares `actual` with the golden file (or writes it when updating); a missing golden fails. */
export function expectJsonGolden(file: URL, actual: unknown): void {
  const path = fileURLToPath(file);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (UPDATING) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`golden file ${path} is missing: run the test with UPDATE_GOLDEN=1 to create it, then review it`);
  }
  expect(plain(actual)).toStrictEqual(JSON.parse(expected));
}

/** Golden files in a folder, by the input file name they belong to (`<input>.json`). */
export function goldenInputs(dir: URL): string[] {
  return readdirSync(fileURLToPath(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
}

/**
 * A capped list for a golden file: the first GOLDEN_DRAFTS_SHOWN items in full, plus the count and
 * a digest of all of them, so a change past the cap still changes the golden.
 */
export function capped<T>(items: T[]): { count: number; sha256: string; shown: T[] } {
  return {
    count: items.length,
    sha256: createHash('sha256').update(JSON.stringify(items)).digest('hex'),
    shown: items.slice(0, GOLDEN_DRAFTS_SHOWN),
  };
}

const CORPUS_GOLDEN = new URL('../fixtures/third-party/corpus/golden/', import.meta.url);

/**
 * What a corpus file's golden says its refusal is (the ICS message, the CSV reason), or undefined
 * when the file is read: a test that lets a run fail as a whole asks this first, so a file refused
 * by mistake cannot pass. A CSV with a `--map` in test/csv/helpers.ts is looked up as read with it.
 */
export function corpusRefusal(kind: 'ics' | 'csv', file: string): string | undefined {
  const golden = JSON.parse(readFileSync(new URL(`${kind}/${file}.json`, CORPUS_GOLDEN), 'utf8'));
  if (kind === 'ics') return golden.refused?.message;
  return (golden.withMapping ?? golden.withoutMapping).refused?.reason;
}
