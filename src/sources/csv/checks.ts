import type { z } from 'zod';
import { checkEventDraft, checkOrganizerDraft, checkVenueDraft } from '../../model/draft-check.ts';
import type { AnyDraft, CsvKind } from './types.ts';

/** The draft schemas have the last word on what a row builder (event-row.ts, linked-row.ts) made (src/model/draft-check.ts). */
const CHECKS: Record<CsvKind, (candidate: unknown) => z.ZodSafeParseResult<AnyDraft>> = {
  events: checkEventDraft,
  venues: checkVenueDraft,
  organizers: checkOrganizerDraft,
};

/** The draft schema's verdict on a builder's candidate. */
export function checkDraft(kind: CsvKind, candidate: Record<string, unknown>): z.ZodSafeParseResult<AnyDraft> {
  return CHECKS[kind](candidate);
}
