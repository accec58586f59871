import type { EventRecord, OrganizerRecord, TermRecord, VenueRecord } from '../../api/index.ts';
import { eventCostText, eventVenue } from '../../api/index.ts';
import { TERM_CHAIN_DEPTH, type EventDraft, type Normalized, type OrganizerDraft, type TermDraft, type VenueDraft } from '../../model/draft.ts';
import { checkChainedEventDraft } from '../../model/draft-check.ts';
import { slugify } from '../../model/identity.ts';
import { cleanEvent, cleanOrganizer, cleanVenue } from '../../model/clean.ts';
import { plainText, sanitizeHtml } from '../../model/html.ts';


// One source site per sync, thousands of copied slugs (an event's, its venue's, its organizers'): slugify its key once.
let keySlug = { key: '', slug: '' };

/** Target slug of a copied record: `<source-site-key>-<source slug or id>`, stable across runs. */
export function copiedSlug(sourceSiteKey: string, slug: string | undefined, id: number): string {
  const base = slug && slug !== '' ? slug.replace(/__trashed$/, '') : String(id);
  if (keySlug.key !== sourceSiteKey) keySlug = { key: sourceSiteKey, slug: slugify(sourceSiteKey, 60) };
  return `${keySlug.slug}-${base}`.slice(0, 200);
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function venueDraft(v: VenueRecord, sourceSiteKey: string): VenueDraft {
  const lat = Number(v.geo_lat);
  const lng = Number(v.geo_lng);
  const r = v as VenueRecord & Record<string, unknown>;
  // Another site's fields are as untrusted as a feed's: one sanitizer for all (src/model/clean.ts).
  const draft: VenueDraft = {
    identity: `${sourceSiteKey}:venue:${v.id}`,
    slug: copiedSlug(sourceSiteKey, r.slug as string | undefined, v.id),
    venue: v.venue ?? `Venue ${v.id}`,
    description: str(r.description),
    address: str(v.address),
    city: str(v.city),
    country: str(v.country),
    province: str(v.province),
    state: str(v.state),
    stateprovince: str(v.stateprovince),
    zip: str(v.zip),
    phone: str(r.phone),
    website: str(r.website),
    show_map: v.show_map ?? undefined,
    show_map_link: v.show_map_link ?? undefined,
    ...(Number.isFinite(lat) && Number.isFinite(lng) && v.geo_lat !== undefined ? { geo: { lat, lng } } : {}),
  };
  return cleanVenue(draft) ?? cleanVenue({ ...draft, venue: `Venue ${v.id}` })!;
}

export function organizerDraft(o: OrganizerRecord, sourceSiteKey: string): OrganizerDraft {
  const r = o as OrganizerRecord & Record<string, unknown>;
  const draft: OrganizerDraft = {
    identity: `${sourceSiteKey}:organizer:${o.id}`,
    slug: copiedSlug(sourceSiteKey, r.slug as string | undefined, o.id),
    organizer: o.organizer ?? `Organizer ${o.id}`,
    description: str(r.description),
    email: str(o.email),
    phone: str(r.phone),
    website: str(r.website),
  };
  return cleanOrganizer(draft) ?? cleanOrganizer({ ...draft, organizer: `Organizer ${o.id}` })!;
}

/**
 * Category drafts keep the source's slug (so a rename at the source is matched and applied on
 * the target) and the full parent chain from the source's category list.
 */
export function termDraft(t: Pick<TermRecord, 'name' | 'slug' | 'description' | 'parent'>, byId?: Map<number, TermRecord>, depth = 0): TermDraft {
  const d: TermDraft = { name: plainText(t.name).trim() || t.slug, slug: t.slug, description: sanitizeHtml(t.description ?? '') };
  const parent = t.parent ? byId?.get(t.parent) : undefined;
  if (parent && depth < TERM_CHAIN_DEPTH) d.parent = termDraft(parent, byId, depth + 1);
  return d;
}

/**
 * Bump when the mapping from a source record to a draft changes: a sync skips rendering events
 * the source has not modified since they were written with the same version.
 */
export const DRAFT_VERSION = 3; // 2: titles and texts as typed (raw-text.ts); 3: fields pass the shared sanitizer (src/model/clean.ts)

/** What a source event links to, as drafts (also used without building the whole event draft). */
export function eventLinksFromRecord(r: EventRecord, opts: { sourceSiteKey: string; categoriesById?: Map<number, TermRecord> }) {
  const venue = eventVenue(r);
  return {
    categories: (r.categories ?? []).map((t) => termDraft(t as TermRecord, opts.categoriesById)),
    tags: (r.tags ?? []).map((t) => termDraft(t as TermRecord)),
    venue: venue ? venueDraft(venue, opts.sourceSiteKey) : undefined,
    organizers: (r.organizer ?? []).map((o) => organizerDraft(o as OrganizerRecord, opts.sourceSiteKey)),
  };
}

/** A source site's event → the draft calsync writes to the target (event passwords are never copied). */
export function eventDraftFromRecord(r: EventRecord, opts: { sourceSiteKey: string; sourceName: string; categoriesById?: Map<number, TermRecord> }): Normalized<EventDraft> {
  const origin = { source: opts.sourceName, ref: String(r.id) };
  const website = typeof r.website === 'string' && r.website !== r.url ? r.website : undefined;
  const image = r.image && typeof r.image === 'object' ? (r.image as { url?: string }).url : undefined;
  const cost = eventCostText(r);
  const content = cleanEvent({ title: r.title || `Event ${r.id}`, description: str(r.description), excerpt: str(r.excerpt), cost: str(cost), website });
  const parsed = checkChainedEventDraft({
    identity: `${opts.sourceSiteKey}:event:${r.id}`,
    slug: copiedSlug(opts.sourceSiteKey, r.slug, r.id),
    title: content.title || `Event ${r.id}`,
    description: content.description,
    excerpt: content.excerpt,
    status: r.status === 'trash' ? undefined : r.status,
    timezone: r.timezone && r.timezone !== '' ? r.timezone : 'UTC',
    all_day: r.all_day ?? false,
    start_date: r.start_date,
    end_date: r.end_date,
    image,
    cost: content.cost,
    website: content.website,
    show_map: r.show_map ?? undefined,
    show_map_link: r.show_map_link ?? undefined,
    hide_from_listings: r.hide_from_listings ?? undefined,
    sticky: r.sticky ?? undefined,
    featured: r.featured ?? undefined,
    ...eventLinksFromRecord(r, opts),
    sourceModified: r.modified_utc,
    origin,
  });
  if (!parsed.success) {
    return { ok: false, failure: { kind: 'event', origin, reason: `source event ${r.id} "${r.title}": ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` } };
  }
  return { ok: true, draft: parsed.data };
}
