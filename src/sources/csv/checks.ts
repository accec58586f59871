import { z } from 'zod';
import { EventDraft, FlatEventDraft, OrganizerDraft, VenueDraft } from '../../model/draft.ts';
import type { AnyDraft, CsvKind } from './types.ts';

/** The draft schemas have the last word on what a row builder (event-row.ts, linked-row.ts) made. */
const SCHEMAS: Record<CsvKind, z.ZodType<AnyDraft>> = { events: EventDraft, venues: VenueDraft, organizers: OrganizerDraft };

/** Exported for the test that holds z.compile to compiling it (it falls back silently otherwise). */
export { FlatEventDraft };

/**
 * The same checks, compiled (z.compile): the runtime parser was ~15% of a row's time (profiled on
 * bench/csv-read-child.ts), the compiled one a tenth of that. A CSV row's terms are names, so
 * events are checked against EventDraft with flat terms (FlatEventDraft, src/model/draft.ts): EventDraft
 * itself holds TermDraft's cycle, which z.compile refuses. These accept a subset of what SCHEMAS accept, with
 * the same output; a draft they refuse goes to SCHEMAS, whose verdict and issues are the ones kept.
 */
const FAST: Record<CsvKind, z.ZodType<AnyDraft>> = {
  events: z.compile(FlatEventDraft),
  venues: z.compile(VenueDraft),
  organizers: z.compile(OrganizerDraft),
};

/** The draft schema's verdict on a builder's candidate (see FAST). */
export function checkDraft(kind: CsvKind, candidate: Record<string, unknown>): z.ZodSafeParseResult<AnyDraft> {
  const fast = FAST[kind].safeParse(candidate);
  return fast.success ? fast : SCHEMAS[kind].safeParse(candidate);
}
