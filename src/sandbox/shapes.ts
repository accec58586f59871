import { texturize } from './texturize.ts';
import { renderCost } from './cost.ts';
import { dateDetails, isoWithOffset, timezoneAbbr, wallOf } from './dates.ts';
import type { Attachment, EventRecord, OrganizerRecord, PostKind, TermRecord, VenueRecord } from './records.ts';
import type { Store } from './store.ts';

/** Where a response is rendered for: permalinks and REST links depend on the request. */
export interface RenderCtx {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** host without port, as global ids carry it */
  host: string;
  /** the REST root the request used, e.g. `http://127.0.0.1:PORT/fr/wp-json` */
  restRoot: string;
  /** the namespace the request used (the alias answers with its own links) */
  namespace: string;
  lang: string;
}

const POST_TYPE: Record<PostKind, string> = { event: 'tribe_events', venue: 'tribe_venue', organizer: 'tribe_organizer' };

export function collectionUrl(rc: RenderCtx, collection: string): string {
  return `${rc.restRoot}/${rc.namespace}/${collection}`;
}

function langPrefix(rc: RenderCtx): string {
  return rc.lang === 'en' ? '' : `/${rc.lang}`;
}

/** Pretty permalink when published, `?post_type=…&p=ID` otherwise (drafts, trash). */
export function permalink(rc: RenderCtx, kind: PostKind, rec: { id: number; status: string; slug: string }): string {
  if (rec.status !== 'publish' || !rec.slug) return `${rc.origin}/?post_type=${POST_TYPE[kind]}&p=${rec.id}`;
  return `${rc.origin}${langPrefix(rc)}/${kind}/${rec.slug}/`;
}

/** A light wpautop: plain text gets paragraphs, HTML that already has blocks is left alone. */
export function autop(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  if (/^<(p|div|h[1-6]|ul|ol|table|blockquote|pre|figure|section)[\s>]/i.test(t)) return t;
  return t
    .split(/\n\s*\n/)
    .map((para) => `<p>${para.trim().replace(/\n/g, '<br />\n')}</p>`)
    .join('\n');
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '').trim();
}

/** PHP array_filter: drops "", null, false, 0, "0" and empty arrays. */
function arrayFilter(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === '' || v === null || v === undefined || v === false || v === 0 || v === '0') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

function globalIds(rc: RenderCtx, id: number): { global_id: string; global_id_lineage: string[] } {
  const gid = `${rc.host}?id=${id}`;
  return { global_id: gid, global_id_lineage: [gid] };
}

function renderImage(store: Store, id: number | null): Record<string, unknown> | false {
  const a: Attachment | undefined = id === null ? undefined : store.attachments.get(id);
  return a ? { url: a.url, id: a.id, extension: a.extension } : false;
}

// ---------------------------------------------------------------------------------------------
// terms

/** A term as embedded in an event (WP_Term cast to an array, `term_id` renamed `id`). */
export function renderEmbeddedTerm(store: Store, t: TermRecord, rc: RenderCtx): Record<string, unknown> {
  return {
    name: t.name, slug: t.slug, term_group: 0, term_taxonomy_id: t.id, taxonomy: t.taxonomy,
    description: t.description, parent: t.parent, count: store.linkCount(t.id), filter: 'raw', id: t.id,
    urls: termUrls(t, rc),
  };
}

function termCollection(t: TermRecord): string {
  return t.taxonomy === 'tribe_events_cat' ? 'categories' : 'tags';
}

function termUrls(t: TermRecord, rc: RenderCtx): Record<string, string> {
  const coll = collectionUrl(rc, termCollection(t));
  const urls: Record<string, string> = { self: `${coll}/${t.id}`, collection: coll };
  if (t.parent) urls.up = `${coll}/${t.parent}`;
  return urls;
}

/** A term as /categories and /tags answer (WordPress terms controller, `link` renamed `url`). */
export function renderTerm(store: Store, t: TermRecord, rc: RenderCtx): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id, count: store.linkCount(t.id), description: t.description, name: t.name, slug: t.slug, taxonomy: t.taxonomy,
  };
  if (t.taxonomy === 'tribe_events_cat') out.parent = t.parent;
  out.meta = [];
  out.url = t.taxonomy === 'tribe_events_cat'
    ? `${rc.origin}${langPrefix(rc)}/events/category/${t.slug}/`
    : `${rc.origin}${langPrefix(rc)}/tag/${t.slug}/`;
  out.urls = termUrls(t, rc);
  return out;
}

// ---------------------------------------------------------------------------------------------
// venues and organizers

function postDates(rec: { date: string; dateUtc: string; modified: string; modifiedUtc: string }): Record<string, string> {
  return { date: rec.date, date_utc: rec.dateUtc, modified: rec.modified, modified_utc: rec.modifiedUtc };
}

export function renderVenue(store: Store, v: VenueRecord, rc: RenderCtx, single = false): Record<string, unknown> {
  const url = permalink(rc, 'venue', v);
  const f = v.fields;
  const base = arrayFilter({
    id: v.id, author: String(v.author), status: v.status, ...postDates(v), url,
    venue: texturize(v.title), description: texturize(autop(v.description)), excerpt: texturize(autop(v.excerpt)), slug: v.slug,
    image: renderImage(store, v.image),
    address: f.address, city: f.city, country: f.country, province: f.province, state: f.state, zip: f.zip,
    phone: f.phone, website: f.website, stateprovince: f.stateprovince,
  });
  if (single) {
    base.json_ld = {
      '@type': 'Place', name: v.title, description: stripTags(v.description), url: '',
      address: {
        '@type': 'PostalAddress', streetAddress: f.address, addressLocality: f.city,
        addressRegion: f.stateprovince || f.state || f.province, postalCode: f.zip, addressCountry: f.country,
      },
      telephone: f.phone, sameAs: f.website,
    };
  }
  return { ...base, show_map: v.showMap, show_map_link: v.showMapLink, ...globalIds(rc, v.id) };
}

export function renderOrganizer(store: Store, o: OrganizerRecord, rc: RenderCtx, single = false): Record<string, unknown> {
  const url = permalink(rc, 'organizer', o);
  const base = arrayFilter({
    id: o.id, author: String(o.author), status: o.status, ...postDates(o), url,
    organizer: texturize(o.title), description: texturize(autop(o.description)), excerpt: texturize(autop(o.excerpt)), slug: o.slug,
    image: renderImage(store, o.image),
    phone: o.fields.phone, website: o.fields.website, email: o.fields.email,
  });
  if (single) {
    base.json_ld = {
      '@type': 'Person', name: o.title, description: stripTags(o.description), url: '',
      telephone: o.fields.phone, email: o.fields.email, sameAs: o.fields.website,
    };
  }
  return { ...base, ...globalIds(rc, o.id) };
}

// ---------------------------------------------------------------------------------------------
// events

export function renderEvent(store: Store, ev: EventRecord, rc: RenderCtx, single = false): Record<string, unknown> {
  const url = permalink(rc, 'event', ev);
  const tzForAbbr = ev.timezone || 'UTC';
  const { cost, cost_details } = renderCost(ev.cost);
  const venue = ev.venue === null ? undefined : store.venues.get(ev.venue);
  const organizers = ev.organizers.map((id) => store.organizers.get(id)).filter((o) => o !== undefined);
  const terms = (ids: number[]): Record<string, unknown>[] =>
    ids.map((id) => store.terms.get(id)).filter((t) => t !== undefined).map((t) => renderEmbeddedTerm(store, t, rc));
  const out: Record<string, unknown> = {
    id: ev.id,
    ...globalIds(rc, ev.id),
    author: String(ev.author),
    status: ev.status,
    ...postDates(ev),
    url,
    rest_url: `${collectionUrl(rc, 'events')}/${ev.id}`,
    title: texturize(ev.title),
    description: texturize(autop(ev.description)),
    excerpt: texturize(autop(ev.excerpt)),
    slug: ev.slug,
    image: renderImage(store, ev.image),
    all_day: ev.allDay,
    start_date: ev.start,
    start_date_details: dateDetails(ev.start),
    end_date: ev.end,
    end_date_details: dateDetails(ev.end),
    utc_start_date: ev.utcStart,
    utc_start_date_details: dateDetails(ev.utcStart),
    utc_end_date: ev.utcEnd,
    utc_end_date_details: dateDetails(ev.utcEnd),
    timezone: ev.timezone,
    timezone_abbr: timezoneAbbr(tzForAbbr, wallOf(ev.utcStart)),
    cost,
    cost_details,
    website: ev.website ?? url,
    show_map: ev.showMap,
    show_map_link: ev.showMapLink,
    hide_from_listings: ev.hideFromListings,
    sticky: ev.sticky,
    featured: ev.featured,
    categories: terms(ev.categories),
    tags: terms(ev.tags),
    // One venue is an object, none is an empty ARRAY (PHP's empty array), never null.
    venue: venue ? renderVenue(store, venue, rc) : [],
    organizer: organizers.map((o) => renderOrganizer(store, o, rc)),
    custom_fields: [],
  };
  if (single) {
    const ld: Record<string, unknown> = {
      '@context': 'http://schema.org', '@type': 'Event', name: ev.title,
      description: stripTags(autop(ev.excerpt || ev.description)), url,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: isoWithOffset(ev.start, tzForAbbr),
      endDate: isoWithOffset(ev.end, tzForAbbr),
    };
    if (venue) ld.location = (renderVenue(store, venue, rc, true).json_ld as Record<string, unknown>);
    if (organizers.length) ld.organizer = renderOrganizer(store, organizers[0], rc, true).json_ld;
    ld.performer = 'Organization';
    out.json_ld = ld;
  }
  return out;
}
