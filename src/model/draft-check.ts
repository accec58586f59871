import type { z } from 'zod';
import { compiled } from '../util/compiled.ts';
import { ChainedEventDraft, EventDraft, FlatEventDraft, OrganizerDraft, VenueDraft } from './draft.ts';

/**
 * A draft schema's verdict, asked of a compiled copy first (z.compile): the runtime parser was ~15%
 * of a CSV row's time (bench/csv-read-child.ts) and 8% of the bench's 20 MB ICS feed (one check
 * per VEVENT), the compiled one a tenth to a fifth of that. Events are compiled with flat terms
 * (FlatEventDraft, draft.ts): EventDraft itself holds TermDraft's cycle, which z.compile refuses.
 * The compiled copy accepts a subset of what the schema accepts, with the same output; a draft it
 * refuses goes to the schema, whose verdict and issues are the ones kept. Compiled on first use,
 * once for every source that checks drafts.
 */
function fastFirst<T>(fast: z.ZodType<T>, full: z.ZodType<T>): (candidate: unknown) => z.ZodSafeParseResult<T> {
  return (candidate) => {
    const r = compiled(fast).safeParse(candidate);
    return r.success ? r : full.safeParse(candidate);
  };
}

export const checkEventDraft = fastFirst(FlatEventDraft, EventDraft);
/** A site's event (the sync): its categories carry their parent chains (ChainedEventDraft). */
export const checkChainedEventDraft = fastFirst(ChainedEventDraft, EventDraft);
export const checkVenueDraft = fastFirst(VenueDraft, VenueDraft);
export const checkOrganizerDraft = fastFirst(OrganizerDraft, OrganizerDraft);
