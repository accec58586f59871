import type { CategoryCreate, EventCreate, OrganizerCreate, VenueCreate } from '../api/index.ts';
import type { EventDraft, OrganizerDraft, VenueDraft } from '../model/draft.ts';
import { ORGANIZER_TEXT_FIELDS, VENUE_TEXT_FIELDS } from '../model/text-fields.ts';
import { fingerprint, hashOf } from '../model/fingerprint.ts';

/**
 * Write bodies are always complete: a site update resets every field it is not sent
 * (src/sandbox/event-write.ts models the reset), so each body states every field calsync manages, defaults included.
 * Empty text is left out because the site refuses `""` for title/description/excerpt.
 * The shapes come from the client's create schemas (src/api/schemas): a body is a create input
 * with the fields calsync always states made required.
 */

/** `T` with the keys `K` required. */
type Stated<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/** Fields the site sets itself or that travel outside the body (the slug is in the by-slug route). */
type SiteSet = 'author' | 'date' | 'date_utc' | 'slug';

export type EventBody = Stated<
  Omit<EventCreate, SiteSet | 'cost' | 'venue' | 'organizer'>,
  'status' | 'timezone' | 'all_day' | 'website' | 'show_map' | 'show_map_link' | 'hide_from_listings' | 'sticky' | 'featured' | 'categories' | 'tags'
> & {
  /** Always the text form (the site reads a number the same way). */
  cost: string;
  /** One venue id: the site links only the first of an array. */
  venue?: number;
  /** Organizer ids (new ones go inline only in the create that makes them: src/write/inline.ts). */
  organizer: number[];
};

/** An event create that carries new venues/organizers inline (src/write/inline.ts): the create schema's own widening. */
export type InlineEventBody = Omit<EventBody, 'venue' | 'organizer'> & { slug: string } & Pick<EventCreate, 'venue'> & { organizer: NonNullable<EventCreate['organizer']> };

/** Map flags as strings on the wire: the site refuses a JSON boolean there (src/sandbox/venues.ts models it). */
export type VenueBody = Stated<Omit<VenueCreate, SiteSet>, 'status' | 'show_map' | 'show_map_link'>;

export type OrganizerBody = Stated<Omit<OrganizerCreate, SiteSet>, 'status'>;

/** What an event links to, as site ids (its drafts' links resolved). */
export type EventLinkIds = Pick<EventBody, 'categories' | 'tags' | 'venue'> & { organizers: EventBody['organizer'] };

/** A category or tag body (a tag body never carries `parent`). */
export type TermBody = CategoryCreate;

const text = (s: string | undefined) => (s && s.trim() !== '' ? s : undefined);

/** Ids once each (in order, or sorted); most events link none or one, which need no Set. */
function uniqueIds(ids: readonly number[], sorted: boolean): number[] {
  if (ids.length < 2) return ids.slice();
  const out = [...new Set(ids)];
  return sorted ? out.sort((a, b) => a - b) : out;
}

/** The body fields an event's links give: its draft fields never depend on them (see eventShape). */
type LinkFields = Pick<EventBody, 'categories' | 'tags' | 'organizer' | 'venue'>;

function linkFields(links: EventLinkIds): LinkFields {
  return { categories: uniqueIds(links.categories, true), tags: uniqueIds(links.tags, true), organizer: uniqueIds(links.organizers, false), venue: links.venue };
}

export function eventBody(d: EventDraft, links: EventLinkIds, defaults: { status?: string } = {}): EventBody {
  const linked = linkFields(links);
  const body: EventBody = {
    title: d.title,
    status: d.status ?? defaults.status ?? 'publish',
    timezone: d.timezone,
    all_day: d.all_day,
    start_date: d.start_date,
    end_date: d.end_date,
    cost: d.cost ?? '',
    website: d.website ?? '',
    show_map: d.show_map ?? true,
    show_map_link: d.show_map_link ?? true,
    hide_from_listings: d.hide_from_listings ?? false,
    sticky: d.sticky ?? false,
    featured: d.featured ?? false,
    categories: linked.categories,
    tags: linked.tags,
    organizer: linked.organizer,
  };
  const description = text(d.description);
  if (description) body.description = description;
  const excerpt = text(d.excerpt);
  if (excerpt) body.excerpt = excerpt;
  if (text(d.image)) body.image = d.image;
  if (linked.venue !== undefined) body.venue = linked.venue;
  return body;
}

/** The draft fields a write body copies when they hold text: the cleaned text fields, then the image. */
const VENUE_BODY_FIELDS = [...keysOf(VENUE_TEXT_FIELDS), 'image'] as const;
const ORGANIZER_BODY_FIELDS = [...keysOf(ORGANIZER_TEXT_FIELDS), 'image'] as const;

function keysOf<T extends object>(o: T): (keyof T)[] {
  return Object.keys(o) as (keyof T)[];
}

export function venueBody(v: VenueDraft, defaults: { status?: string } = {}): VenueBody {
  const body: VenueBody = {
    venue: v.venue,
    status: v.status ?? defaults.status ?? 'publish',
    show_map: v.show_map === false ? 'false' : 'true',
    show_map_link: v.show_map_link === false ? 'false' : 'true',
  };
  for (const k of VENUE_BODY_FIELDS) {
    const val = text(v[k]);
    if (val) body[k] = val;
  }
  return body;
}

export function organizerBody(o: OrganizerDraft, defaults: { status?: string } = {}): OrganizerBody {
  const body: OrganizerBody = { organizer: o.organizer, status: o.status ?? defaults.status ?? 'publish' };
  for (const k of ORGANIZER_BODY_FIELDS) {
    const val = text(o[k]);
    if (val) body[k] = val;
  }
  return body;
}

/**
 * `{ ...body, slug }` with its keys in sorted order, as stableStringify writes them (JSON.stringify
 * leaves out the undefined ones, as it does): the one list of the keys eventFingerprint writes by hand.
 */
function sortedFields(b: EventBody, slug: string) {
  return {
    all_day: b.all_day, categories: b.categories, cost: b.cost, description: b.description, end_date: b.end_date, excerpt: b.excerpt,
    featured: b.featured, hide_from_listings: b.hide_from_listings, image: b.image, organizer: b.organizer, show_map: b.show_map,
    show_map_link: b.show_map_link, slug, start_date: b.start_date, status: b.status, sticky: b.sticky, tags: b.tags,
    timezone: b.timezone, title: b.title, venue: b.venue, website: b.website,
  };
}

/** Every key an event body can hold that sortedFields writes (a body's own `slug` is not one: the fingerprint's overrides it). */
const EVENT_FP_KEYS = new Set(Object.keys(sortedFields({} as EventBody, '')).filter((k) => k !== 'slug'));

/** Whether every value of `body` is written by JSON.stringify as stableStringify writes it: strings, numbers, booleans, id lists. */
function plainEventBody(body: EventBody): boolean {
  for (const k in body) {
    if (!EVENT_FP_KEYS.has(k)) return false;
    const v = (body as unknown as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object' && !(Array.isArray(v) && v.every((x) => typeof x === 'number'))) return false;
  }
  return true;
}

/**
 * `fingerprint({ ...body, slug })`, the value the ledger keeps for an event, byte for byte: a
 * re-import computes it for every event of its feed, and the generic sorted copy cost twice this
 * (test/write/event-fingerprint.test.ts compares the two). A body with any other key or value goes
 * the generic way.
 */
export function eventFingerprint(body: EventBody, slug: string): string {
  return plainEventBody(body) ? hashOf(JSON.stringify(sortedFields(body, slug))) : fingerprint({ ...body, slug });
}

const NO_LINKS: EventLinkIds = { categories: [], tags: [], venue: undefined, organizers: [] };

/**
 * The fingerprint of an event's body with its links left out. eventBody reads the links only through
 * linkFields, so two drafts with the same shape and the same linkKey have the same body, and the same
 * eventFingerprint: an unchanged re-import compares these two strings instead of building and hashing
 * the body on its main thread. The ICS parser thread works the shape out (src/write/draft-keys.ts).
 */
export function eventShape(d: EventDraft, slug: string, defaults: { status?: string } = {}): string {
  return eventFingerprint(eventBody(d, NO_LINKS, defaults), slug);
}

/** The link fields of a body (or of linkFields(ids)) as one short string, compared beside the shape. */
export function linkKey(b: LinkFields): string {
  return `${b.categories.join(',')}|${b.tags.join(',')}|${b.venue ?? ''}|${b.organizer.join(',')}`;
}

/** linkKey of the body these ids would give. */
export function linkKeyOf(links: EventLinkIds): string {
  return linkKey(linkFields(links));
}
