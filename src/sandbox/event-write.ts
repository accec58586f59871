import { has, nowWall, siteTzString, type Ctx } from './context.ts';
import { endOfDay, formatWall, isValidTimezone, parseDateInput, startOfDay, wallToInstant } from './dates.ts';
import { couldNotCreate } from './errors.ts';
import { createInline, findLinked, invalidWrite, type LinkedSpec } from './linked.ts';
import { organizerSpec } from './organizers.ts';
import { asText, isNonEmptyString, isSet, isUrl, toBool, toId, toList, type Params } from './params.ts';
import { isDateValue, isImageValue, isPostStatus, newPostBase, publicationDates, resolveImage, settleSlug, touch } from './posts.ts';
import type { EventRecord, OrganizerRecord, VenueRecord } from './records.ts';
import { resolveEventTerms } from './terms.ts';
import { venueSpec } from './venues.ts';
import { publishLinkedOf } from './trash-links.ts';

/**
 * Event create and update. Updates are NOT merges: whatever the body omits is reset the way the
 * live sites reset it (status → publish, flags → false, cost/website → "", organizers unlinked,
 * image removed, timezone → site default, publication date → now); only title, description,
 * excerpt, slug, author, categories, tags and venue survive when omitted.
 */

export const EVENT_WRITE_ARGS = [
  'author', 'date', 'date_utc', 'title', 'description', 'slug', 'excerpt', 'status', 'timezone', 'all_day',
  'start_date', 'end_date', 'image', 'cost', 'website', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky',
  'featured', 'categories', 'tags', 'venue', 'organizer',
] as const;

const FLAGS = ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;

function isEmptyLink(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === '0' || (Array.isArray(v) && v.length === 0);
}

function isObject(v: unknown): v is Params {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An inline entry without an id is checked against the kind's create arguments (the validator
 * runs `has_valid_params` on it): its name is required and every field must be valid, else the
 * whole write is a 400 rest_invalid_param before anything is created.
 */
function validEntry<R extends VenueRecord | OrganizerRecord>(ctx: Ctx, spec: LinkedSpec<R>, entry: Params): boolean {
  if (entry.id !== undefined) return findLinked(ctx.store, spec, ctx.lang, toId(entry.id)) !== undefined;
  return isNonEmptyString(asText(entry[spec.nameArg])) && invalidWrite(ctx.store, ctx.site, spec, entry).length === 0;
}

/** is_venue_id_or_entry_or_empty: an id of a venue of this language, a valid venue object, or nothing. */
function validVenue(ctx: Ctx, v: unknown): boolean {
  if (isEmptyLink(v)) return true;
  const first = Array.isArray(v) ? v[0] : v;
  if (isObject(first)) return validEntry(ctx, venueSpec, first);
  return findLinked(ctx.store, venueSpec, ctx.lang, toId(first)) !== undefined;
}

/** Organizer ids must exist and objects be valid; a bare object passes here (it fails later, in the handler). */
function validOrganizer(ctx: Ctx, v: unknown): boolean {
  if (isEmptyLink(v)) return true;
  if (isObject(v)) return validEntry(ctx, organizerSpec, v);
  return toList(v).every((item) => isObject(item)
    ? validEntry(ctx, organizerSpec, item)
    : findLinked(ctx.store, organizerSpec, ctx.lang, toId(item)) !== undefined);
}

/** Invalid event write arguments, in the order the site declares them. */
export function invalidEventWrite(ctx: Ctx): string[] {
  const p = ctx.params;
  const bad: string[] = [];
  const check = (name: string, ok: (v: unknown) => boolean): void => {
    if (isSet(p[name]) && !ok(p[name])) bad.push(name);
  };
  check('author', (v) => toId(v) === 1);
  check('date', (v) => isDateValue(ctx.site, v));
  check('date_utc', (v) => isDateValue(ctx.site, v));
  // Text fields cannot be emptied: the validator refuses "".
  for (const f of ['title', 'description', 'slug', 'excerpt']) check(f, isNonEmptyString);
  check('status', isPostStatus);
  check('timezone', (v) => typeof v === 'string' && isValidTimezone(v));
  check('all_day', (v) => toBool(v) !== undefined);
  check('start_date', (v) => isDateValue(ctx.site, v));
  check('end_date', (v) => isDateValue(ctx.site, v));
  check('image', (v) => v === '' || isImageValue(ctx.store, v));
  check('website', (v) => v === '' || isUrl(v));
  for (const f of FLAGS.slice(1)) check(f, (v) => toBool(v) !== undefined);
  for (const f of ['categories', 'tags']) check(f, (v) => toList(v).every((x) => asText(x) !== undefined));
  check('venue', (v) => validVenue(ctx, v));
  check('organizer', (v) => validOrganizer(ctx, v));
  return bad;
}

/** The venue to link: undefined = "not submitted" (0, "", [] included), else an id. */
function resolveVenue(ctx: Ctx, v: unknown): number | undefined {
  if (isEmptyLink(v)) return undefined;
  const first = Array.isArray(v) ? v[0] : v; // one venue only; extra ones are ignored
  if (isObject(first)) {
    if (first.id !== undefined) return toId(first.id);
    return createInline(ctx.store, ctx.site, venueSpec, ctx.lang, first).id;
  }
  return toId(first);
}

/** Organizers to link: must be a LIST; a bare object or a CSV string fails the whole write. */
function resolveOrganizers(ctx: Ctx, v: unknown): number[] {
  if (isEmptyLink(v)) return [];
  if (isObject(v) || typeof v === 'string') throw couldNotCreate('organizer');
  const ids: number[] = [];
  for (const item of Array.isArray(v) ? v : [v]) {
    const id = isObject(item)
      ? item.id !== undefined ? toId(item.id) : createInline(ctx.store, ctx.site, organizerSpec, ctx.lang, item).id
      : toId(item);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

function costText(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(', ');
  const text = v === undefined || v === null || v === false ? '' : String(v);
  // PHP's empty() holds for "0": a real site answers a cost of exactly "0" as no cost at all ("", no
  // values), while "0.00", " 0" and "0 INR" read "Free" (test/contract/zero-cost.test.ts).
  return text === '0' ? '' : text;
}

interface Dates {
  start: string;
  end: string;
  utcStart: string;
  utcEnd: string;
  refused: boolean;
}

/**
 * Start and end as stored: the wall clock of what was sent (offsets dropped), whole days when
 * all-day. An end before the start is stored as the start, while the UTC end keeps what was
 * sent and the occurrence is refused (never listed).
 */
function computeDates(ctx: Ctx, p: Params, allDay: boolean, utcZone: string): Dates {
  const now = nowWall(ctx.site);
  let start = parseDateInput(p.start_date, now) as number;
  let end = parseDateInput(p.end_date, now) as number;
  if (allDay) {
    start = startOfDay(start);
    end = endOfDay(end);
  }
  const refused = end < start;
  const zone = utcZone === '' ? 'UTC' : utcZone;
  return {
    start: formatWall(start),
    end: formatWall(refused ? start : end),
    utcStart: formatWall(wallToInstant(start, zone)),
    utcEnd: formatWall(wallToInstant(end, zone)),
    refused,
  };
}

/** Links and terms first: on the live sites they are created even when the event write fails. */
function linksFor(ctx: Ctx): { venue: number | undefined; categories?: number[]; tags?: number[]; organizers: number[] } {
  const p = ctx.params;
  const venue = resolveVenue(ctx, p.venue);
  const categories = has(ctx, 'categories') ? resolveEventTerms(ctx.store, 'tribe_events_cat', ctx.lang, p.categories) : undefined;
  const tags = has(ctx, 'tags') ? resolveEventTerms(ctx.store, 'post_tag', ctx.lang, p.tags) : undefined;
  const organizers = resolveOrganizers(ctx, p.organizer);
  return { venue, categories, tags, organizers };
}

function flag(p: Params, name: string): boolean {
  return isSet(p[name]) ? toBool(p[name]) === true : false;
}

export function createEvent(ctx: Ctx): EventRecord {
  const p = ctx.params;
  const links = linksFor(ctx);
  const title = (asText(p.title) as string).trim();
  const base = newPostBase(ctx.store, ctx.site, ctx.lang, p, title);
  const timezone = isNonEmptyString(p.timezone) ? p.timezone : siteTzString(ctx.site);
  const allDay = flag(p, 'all_day');
  const ev: EventRecord = {
    ...base,
    kind: 'event',
    timezone,
    allDay,
    ...computeDates(ctx, p, allDay, timezone),
    cost: costText(p.cost),
    // The website meta only exists when sent; without it the permalink is shown.
    website: isSet(p.website) ? String(p.website) : null,
    showMap: flag(p, 'show_map'),
    showMapLink: flag(p, 'show_map_link'),
    hideFromListings: flag(p, 'hide_from_listings'),
    sticky: flag(p, 'sticky'),
    featured: flag(p, 'featured'),
    categories: links.categories ?? [],
    tags: links.tags ?? [],
    venue: links.venue ?? null,
    organizers: links.organizers,
  };
  ev.slug = settleSlug(ctx.store, 'event', ev, asText(p.slug));
  ctx.store.addPost(ev);
  return ev;
}

export function updateEvent(ctx: Ctx, ev: EventRecord): EventRecord {
  const p = ctx.params;
  const links = linksFor(ctx);
  const status = typeof p.status === 'string' ? p.status : 'publish';
  if (status === 'publish') publishLinkedOf(ctx.store, ev);
  ctx.store.changePost(ev, (r) => {
    const previousZone = r.timezone;
    r.status = status;
    Object.assign(r, publicationDates(ctx.site, p, r.status));
    if (isNonEmptyString(p.title)) r.title = p.title.trim();
    if (isNonEmptyString(p.description)) r.description = p.description;
    if (isNonEmptyString(p.excerpt)) r.excerpt = p.excerpt;
    // "" keeps the stored zone; omitted resets it to the site default.
    if (isNonEmptyString(p.timezone)) r.timezone = p.timezone;
    else if (!isSet(p.timezone)) r.timezone = siteTzString(ctx.site);
    r.allDay = flag(p, 'all_day');
    if (isSet(p.start_date) && isSet(p.end_date)) {
      // UTC follows the zone given in this request, else the zone the event had (not the reset one).
      Object.assign(r, computeDates(ctx, p, r.allDay, isNonEmptyString(p.timezone) ? p.timezone : previousZone));
    } else if (r.allDay) {
      r.start = formatWall(startOfDay(parseDateInput(r.start, 0) as number));
      r.end = formatWall(endOfDay(parseDateInput(r.end, 0) as number));
    }
    r.image = isSet(p.image) && p.image !== '' ? resolveImage(ctx.store, p.image) : null;
    r.cost = costText(p.cost);
    r.website = isSet(p.website) ? String(p.website) : '';
    r.showMap = flag(p, 'show_map');
    r.showMapLink = flag(p, 'show_map_link');
    r.hideFromListings = flag(p, 'hide_from_listings');
    r.sticky = flag(p, 'sticky');
    r.featured = flag(p, 'featured');
    if (links.categories) r.categories = links.categories;
    if (links.tags) r.tags = links.tags;
    if (links.venue !== undefined) r.venue = links.venue;
    r.organizers = links.organizers;
    r.slug = settleSlug(ctx.store, 'event', r, isNonEmptyString(p.slug) ? p.slug : undefined);
    touch(ctx.site, r);
  });
  return ev;
}
