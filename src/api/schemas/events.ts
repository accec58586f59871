import { z } from 'zod';
import {
  Author,
  DateDetails,
  Id,
  MaybeBool,
  MaybeImage,
  NonEmpty,
  Slug,
  WALL_TIME,
  WallTime,
} from './common.ts';
import { OrganizerCreate, OrganizerRecord } from './organizers.ts';
import { TermRecord } from './terms.ts';
import { VenueCreate, VenueRecord } from './venues.ts';

/**
 * Event record as the site returns it (src/sandbox/shapes.ts renders the same shape). Lenient where the live sites are odd:
 * `venue` is `[]` without a venue, one object with one, an array only with multi-venue add-ons
 * (use `eventVenue()`); booleans are `null` on password-redacted events; `custom_fields` is `[]`
 * when empty; `image` is `false` without one. Unknown keys (add-ons) are kept, not rejected.
 */
export const EventRecord = z.looseObject({
  id: z.number().int(),
  global_id: z.string().optional(),
  global_id_lineage: z.array(z.string()).optional(),
  author: Author.optional(),
  status: z.string(),
  date: z.string().optional(),
  date_utc: z.string().optional(),
  modified: z.string().optional(),
  modified_utc: z.string().optional(),
  url: z.string().optional(),
  rest_url: z.string().optional(),
  title: z.string(),
  description: z.string().optional(),
  excerpt: z.string().optional(),
  /** May be `""` for drafts; `<slug>__trashed` once trashed. */
  slug: z.string(),
  image: MaybeImage.optional(),
  all_day: MaybeBool.optional(),
  start_date: z.string(),
  start_date_details: DateDetails.optional(),
  end_date: z.string(),
  end_date_details: DateDetails.optional(),
  utc_start_date: z.string().optional(),
  utc_start_date_details: DateDetails.optional(),
  utc_end_date: z.string().optional(),
  utc_end_date_details: DateDetails.optional(),
  timezone: z.string().optional(),
  timezone_abbr: z.string().optional(),
  /** Display string ("$15", "Free", "$10 – $20"); the numbers are in `cost_details.values`. */
  cost: z.preprocess((v) => (v === null ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional()),
  /** An object; `[]` or blank on password-redacted events, read as absent. */
  cost_details: z.preprocess(
    (v) => (Array.isArray(v) ? undefined : v),
    z
      .looseObject({
        currency_symbol: z.string().optional(),
        currency_code: z.string().optional(),
        currency_position: z.string().optional(),
        values: z.array(z.union([z.string(), z.number().transform(String)])).optional(),
      })
      .optional(),
  ),
  /** Falls back to the event permalink when never set: do not write it back blindly. */
  website: z.string().nullable().optional(),
  show_map: MaybeBool.optional(),
  show_map_link: MaybeBool.optional(),
  hide_from_listings: MaybeBool.optional(),
  sticky: MaybeBool.optional(),
  featured: MaybeBool.optional(),
  categories: z.array(TermRecord).default([]),
  tags: z.array(TermRecord).default([]),
  // `[]` (no venue) first: the commonest shape; the options are disjoint, so the order changes no result.
  venue: z.union([z.array(VenueRecord), VenueRecord]).default([]),
  organizer: z.array(OrganizerRecord).default([]),
  custom_fields: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
  /** Only on single reads. */
  json_ld: z.unknown().optional(),
});
export type EventRecord = z.infer<typeof EventRecord>;

/** The fields of an embedded venue or organizer the write path reads (see EventAck). */
const linkedAckShape = {
  id: z.number().int(),
  slug: z.string().optional(),
  status: z.string().optional(),
  modified_utc: z.string().optional(),
};

/**
 * The part of an event write's answer that the write path reads (src/write/writer.ts): id, slug,
 * status, when it was modified, its local and UTC start and end, and the venue and organizers it links (with the ids
 * of those created inline). Title and dates are required as in EventRecord, so a 2xx answer that is not
 * an event is still refused (ResponseFormatError). Parsed instead of EventRecord on every create
 * and update of an import or sync: about a fifth of the cost, since date details, images, terms,
 * costs and unknown keys are left unread (and dropped).
 */
export const EventAck = z.object({
  id: z.number().int(),
  status: z.string(),
  title: z.string(),
  slug: z.string(),
  start_date: z.string(),
  end_date: z.string(),
  modified_utc: z.string().optional(),
  utc_start_date: z.string().optional(),
  // The ledger keeps the UTC end for retirement by overlap (recordTimes in src/model/run-window.ts).
  utc_end_date: z.string().optional(),
  venue: z.union([z.array(z.object({ ...linkedAckShape, venue: z.string().optional() })), z.object({ ...linkedAckShape, venue: z.string().optional() })]).default([]),
  organizer: z.array(z.object({ ...linkedAckShape, organizer: z.string().optional() })).default([]),
});
export type EventAck = z.infer<typeof EventAck>;

/** The venue of an event (record or EventAck), whichever of its three wire shapes arrived; null when none. */
export function eventVenue<V>(record: { venue: V | V[] }): V | null {
  const v = record.venue;
  if (Array.isArray(v)) return v[0] ?? null;
  return v ?? null;
}

/**
 * The cost to write for a record so that the site shows what it shows now: its numbers
 * (`cost_details.values`, "0" for Free) joined as a range, with the currency symbol where it
 * stood. Sending the display string instead would carry a localized "Free" as text; sending the
 * bare numbers would lose the symbol (the site then adds its default "$").
 */
export function eventCostText(record: Pick<EventRecord, 'cost' | 'cost_details'>): string | undefined {
  const d = record.cost_details;
  if (!d?.values?.length) return record.cost ?? undefined;
  const symbol = d.currency_symbol ?? '';
  const postfix = d.currency_position === 'postfix';
  return `${postfix ? '' : symbol}${d.values.join(' - ')}${postfix ? symbol : ''}`;
}

/**
 * The event write body (the fields src/sandbox/event-write.ts accepts). Dates are local wall times
 * with an explicit `timezone` (offsets, `Z` and epoch numbers are silently misread:
 * src/sandbox/dates.ts). Terms go by id only (names create bogus terms). A venue or organizer the
 * site does not hold yet may go inline, as the fields of its own create: the site creates it
 * (de-duplicated by title like `POST /venues`, test/contract/inline-linked.test.ts) and names it
 * from its title; it takes no slug there.
 */
const eventFields = {
  author: Id.optional(),
  date: WallTime.optional(),
  date_utc: WallTime.optional(),
  title: NonEmpty,
  description: NonEmpty.optional(),
  slug: Slug.optional(),
  excerpt: NonEmpty.optional(),
  status: z.string().min(1).optional(),
  timezone: z.string().optional(),
  all_day: z.boolean().optional(),
  start_date: WallTime,
  end_date: WallTime,
  /** An attachment id (as a string: a JSON number is a 400) or an image URL. */
  image: z.string().optional(),
  cost: z.union([z.string(), z.number()]).optional(),
  /** A URL, or `""` to clear it. */
  website: z.string().optional(),
  show_map: z.boolean().optional(),
  show_map_link: z.boolean().optional(),
  hide_from_listings: z.boolean().optional(),
  sticky: z.boolean().optional(),
  featured: z.boolean().optional(),
  /** Ids only; `[]` clears. An unknown id is silently dropped by the site. */
  categories: z.array(Id).optional(),
  tags: z.array(Id).optional(),
  /** One venue id (the site links only the first; an array is accepted too, the documented form), or a new venue's fields. */
  venue: z.union([Id, z.array(Id), VenueCreate.omit({ slug: true })]).optional(),
  /**
   * Organizer ids and/or new organizers' fields, always a list (a bare object is a 400 after the
   * inline venue was created); `[]` unlinks all, and omitting it unlinks all too (reset on omit).
   */
  organizer: z.array(z.union([Id, OrganizerCreate.omit({ slug: true })])).optional(),
};

/** True when `end` is before `start`; both strings are `YYYY-MM-DD HH:MM:SS`, so text order is time order. */
function endsBeforeStart(b: { start_date?: string; end_date?: string }): boolean {
  const { start_date: start, end_date: end } = b;
  if (start === undefined || end === undefined) return false;
  // Only well-formed values are compared; malformed ones already carry their own issue.
  // The regex itself, not WallTime.safeParse: this runs on every write body, twice.
  if (!WALL_TIME.test(start) || !WALL_TIME.test(end)) return false;
  return end < start;
}

/**
 * The site accepts end < start with a 201 and then hides the event from every list
 * (src/sandbox/event-write.ts marks it refused), so it is refused here before anything is sent.
 */
const endNotBeforeStart = {
  message: 'end_date is before start_date (the site would store it and then hide the event)',
  path: ['end_date'],
};

export const EventCreate = z.strictObject(eventFields).refine((b) => !endsBeforeStart(b), endNotBeforeStart);
export type EventCreate = z.infer<typeof EventCreate>;

/** All fields optional; not a partial update on the site, though: omitted fields are reset. */
export const EventUpdate = z
  .strictObject(eventFields)
  .partial()
  .refine((b) => !endsBeforeStart(b), endNotBeforeStart);
export type EventUpdate = z.infer<typeof EventUpdate>;

/** By-id updates also take the event password (needed for password-protected events). */
export const EventUpdateById = z
  .strictObject({ ...eventFields, password: z.string().optional() })
  .partial()
  .refine((b) => !endsBeforeStart(b), endNotBeforeStart);
export type EventUpdateById = z.infer<typeof EventUpdateById>;
