import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventDraft, ItemFailure } from '../../src/model/draft.ts';
import { IcsError } from '../../src/sources/ics/errors.ts';
import { capped, expectJsonGolden, goldenInputs, UPDATING } from '../support/golden.ts';
import { corpusFiles, runCorpus } from './helpers.ts';

/**
 * Per-file expected output for every corpus ICS file (test/fixtures/third-party/corpus/golden/ics/<file>.json): the summary,
 * every warning and failure, and the drafts (the first ones in full, all of them by count and
 * digest), or the refusal (code and message) of a file the normalizer refuses, so a refused file
 * cannot pass unnoticed. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/ics/corpus-golden.test.ts`
 * and review the diff: it is the behaviour change.
 */
const GOLDEN = new URL('../fixtures/third-party/corpus/golden/ics/', import.meta.url);

/** `origin.source` is the file name in every item: left out, the golden's name says it. */
function withoutSource<T extends { origin: { source: string } }>(item: T): T {
  const { source: _source, ...origin } = item.origin;
  return { ...item, origin };
}

function normalizedCorpus(file: string) {
  let run;
  try {
    run = runCorpus(file);
  } catch (error) {
    if (error instanceof IcsError) return { file, refused: { code: error.code, message: error.message } };
    throw error;
  }
  const { uids, warnings, ...summary } = run.summary;
  return {
    file,
    summary: { ...summary, uids: uids.length },
    warnings,
    failures: run.failures.map((f: ItemFailure) => withoutSource(f)),
    drafts: capped(run.drafts.map((d: EventDraft) => withoutSource(d))),
  };
}

describe('ICS corpus goldens', () => {
  // The normalizer falls back to the current year for zone rules when no VEVENT has a start: a
  // fixed clock keeps such a file's golden from changing on New Year's Day.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-15T12:00:00Z'));
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('has one golden per corpus file and none for a file that is gone', () => {
    if (!UPDATING) expect(goldenInputs(GOLDEN)).toEqual(corpusFiles());
  });

  for (const file of corpusFiles()) {
    it(file, () => {
      expectJsonGolden(new URL(`${file}.json`, GOLDEN), normalizedCorpus(file));
    });
  }
});
