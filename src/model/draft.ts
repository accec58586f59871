import { z } from 'zod';
import { ORGANIZER_TEXT_FIELDS, VENUE_TEXT_FIELDS, type TextKind } from './text-fields.ts';

/**
 * Drafts are what every source (ICS, CSV, another site) normalizes into and what the writer
 * consumes. They carry names, not site ids: terms, venues and organizers are resolved to ids
 * on the target site by `src/write/`. Each draft carries the identity its slug is derived from.
 */

/** `YYYY-MM-DD HH:MM:SS`: the only date form the site reads reliably (offsets, `Z` and epoch numbers are misread; src/sandbox/dates.ts models how the site reads dates). */
export const WallTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'expected YYYY-MM-DD HH:MM:SS');

/** Where an item came from, for reports: file + line for CSV, UID (+ occurrence) for ICS, id for a site. */
export const Origin = z.object({
  source: z.string(),
  line: z.number().int().optional(),
  uid: z.string().optional(),
  occurrence: z.string().optional(),
  ref: z.string().optional(),
});
export type Origin = z.infer<typeof Origin>;

function optionalStrings<K extends string>(fields: Record<K, TextKind>): { [P in K]: z.ZodOptional<z.ZodString> } {
  return Object.fromEntries(Object.keys(fields).map((k) => [k, z.string().optional()])) as { [P in K]: z.ZodOptional<z.ZodString> };
}

export const VenueDraft = z.object({
  /** Identity the venue's slug is derived from (e.g. normalized location text, or a CSV key). */
  identity: z.string().min(1),
  venue: z.string().min(1),
  ...optionalStrings(VENUE_TEXT_FIELDS),
  image: z.string().optional(),
  /** The site wants these as strings ("true"/"false"), the writer converts. */
  show_map: z.boolean().optional(),
  show_map_link: z.boolean().optional(),
  status: z.string().optional(),
  /** Not writable through the v1 API; kept for exports and reports. */
  geo: z.object({ lat: z.number(), lng: z.number() }).optional(),
  /** A site slug to use instead of one derived from identity (sync keeps the source's). */
  slug: z.string().optional(),
});
export type VenueDraft = z.infer<typeof VenueDraft>;

export const OrganizerDraft = z.object({
  identity: z.string().min(1),
  organizer: z.string().min(1),
  ...optionalStrings(ORGANIZER_TEXT_FIELDS),
  image: z.string().optional(),
  status: z.string().optional(),
  slug: z.string().optional(),
});
export type OrganizerDraft = z.infer<typeof OrganizerDraft>;

export interface TermDraft {
  name: string;
  slug?: string;
  description?: string;
  /** Parent category (categories only): a name, or a full draft when the source knows it (sync). */
  parent?: string | TermDraft;
}
const TERM_FIELDS = { name: z.string().min(1), slug: z.string().optional(), description: z.string().optional() };
export const TermDraft: z.ZodType<TermDraft> = z.object({
  ...TERM_FIELDS,
  parent: z.union([z.string(), z.lazy(() => TermDraft)]).optional(),
});

/**
 * A term whose parent, if any, is a name: what a flat source (a CSV row) builds. TermDraft's cycle
 * (a parent is a term) keeps z.compile from compiling any schema that holds it; this one has none.
 * Strict, so a key TermDraft would drop is refused here instead: whatever this accepts, TermDraft
 * accepts with the same output.
 */
export const FlatTermDraft = z.strictObject({ ...TERM_FIELDS, parent: z.string().optional() });

export const EventDraft = z
  .object({
    /** Stable identity: source key + UID + occurrence start instant, or a CSV key. Never the title. */
    identity: z.string().min(1),
    title: z.string().min(1),
    description: z.string().optional(),
    excerpt: z.string().optional(),
    status: z.string().optional(),
    /** IANA zone name (or `UTC`). */
    timezone: z.string().min(1),
    all_day: z.boolean(),
    /** Local wall time in `timezone`; for all-day events 00:00:00 of the first day. */
    start_date: WallTime,
    /** Local wall time in `timezone`; for all-day events 23:59:59 of the LAST day (inclusive). */
    end_date: WallTime,
    image: z.string().optional(),
    cost: z.string().optional(),
    website: z.string().optional(),
    show_map: z.boolean().optional(),
    show_map_link: z.boolean().optional(),
    hide_from_listings: z.boolean().optional(),
    sticky: z.boolean().optional(),
    featured: z.boolean().optional(),
    categories: z.array(TermDraft).default([]),
    tags: z.array(TermDraft).default([]),
    venue: VenueDraft.optional(),
    organizers: z.array(OrganizerDraft).default([]),
    /** A cancelled occurrence: retired (or skipped) instead of written. */
    cancelled: z.boolean().default(false),
    /** Source's own modification stamp (ISO), lets a sync skip untouched records. */
    sourceModified: z.string().optional(),
    /** A site slug to use instead of one derived from identity. */
    slug: z.string().optional(),
    origin: Origin,
  })
  .refine((d) => d.end_date >= d.start_date, { message: 'end is before start', path: ['end_date'] });
export type EventDraft = z.infer<typeof EventDraft>;

/**
 * EventDraft with flat terms (FlatTermDraft): what z.compile can compile, since EventDraft itself
 * holds TermDraft's cycle, which z.compile refuses. It accepts a subset of what EventDraft accepts,
 * with the same output; drafts whose terms are names (CSV rows, ICS CATEGORIES) are checked against a
 * compiled copy first, EventDraft keeping the verdict and issues of a refusal (draft-check.ts).
 */
const FLAT_TERMS = z.array(FlatTermDraft).default([]);
export const FlatEventDraft = EventDraft.safeExtend({ categories: FLAT_TERMS, tags: FLAT_TERMS });

/**
 * A term with its parent chain as full drafts, unrolled to `depth` parents (a synced category
 * carries the source's chain: src/sources/site/normalize.ts termDraft stops at 10). No cycle, so
 * z.compile can compile it; strict like FlatTermDraft, so it accepts a subset of TermDraft's input
 * with the same output.
 */
function chainedTermDraft(depth: number): z.ZodType<TermDraft> {
  const parent = depth === 0 ? z.string() : z.union([z.string(), chainedTermDraft(depth - 1)]);
  return z.strictObject({ ...TERM_FIELDS, parent: parent.optional() });
}
export const TERM_CHAIN_DEPTH = 10;
/** EventDraft with categories' parent chains unrolled (chainedTermDraft): what the sync's drafts are checked with first. */
export const ChainedEventDraft = EventDraft.safeExtend({ categories: z.array(chainedTermDraft(TERM_CHAIN_DEPTH)).default([]), tags: FLAT_TERMS });
export type EventDraftInput = z.input<typeof EventDraft>;

/** An item a reader or normalizer could not turn into a draft, with the reason and where it was. */
export interface ItemFailure {
  kind: 'event' | 'venue' | 'organizer';
  origin: Origin;
  reason: string;
  /** The raw input (a CSV row, an ICS UID) so rejects can be written back out. */
  raw?: unknown;
}

/** What a normalizer yields: a draft or a failure, one per item read. */
export type Normalized<T> = { ok: true; draft: T } | { ok: false; failure: ItemFailure };
