import { nowStamps, type Ctx, type Endpoint, type SiteConfig } from './context.ts';
import { ApiError, couldNotCreate, inTrash, invalidParams, notAccessible } from './errors.ts';
import { archiveReply, invalidPaging, listStatuses, paging } from './paging.ts';
import { asText, isNonEmptyString, isSet, toBool, toId, type Params } from './params.ts';
import {
  isDateValue, isImageValue, isPostStatus, newPostBase, publicationDates, resolveImage, settleSlug, touch, trash,
} from './posts.ts';
import type { OrganizerRecord, PostBase, VenueRecord } from './records.ts';
import { collectionUrl, type RenderCtx } from './shapes.ts';
import type { Store } from './store.ts';
import { unlinkTrashed } from './trash-links.ts';

type Linked = VenueRecord | OrganizerRecord;

/**
 * What differs between venues and organizers; everything else (routes, dedupe, trash, the
 * keep-omitted-fields update) is shared below.
 */
export interface LinkedSpec<R extends Linked> {
  kind: R['kind'];
  collection: 'venues' | 'organizers';
  /** the name argument: `venue` / `organizer` */
  nameArg: string;
  /** text fields, in argument order */
  fields: readonly (keyof R['fields'] & string)[];
  /** kind-specific invalid argument names */
  invalid: (params: Params) => string[];
  /** a new record from a base and the request */
  build: (base: PostBase, fields: R['fields'], params: Params) => R;
  /** kind-specific effects of an update on omitted fields */
  onUpdate: (rec: R, params: Params) => void;
  render: (store: Store, rec: R, rc: RenderCtx, single?: boolean) => Record<string, unknown>;
}

function mapOf<R extends Linked>(store: Store, spec: LinkedSpec<R>): Map<number, R> {
  return (spec.kind === 'venue' ? store.venues : store.organizers) as Map<number, R>;
}

/** A record of this kind in this language (a record of another language does not exist here). */
export function findLinked<R extends Linked>(store: Store, spec: LinkedSpec<R>, lang: string, id: number | undefined): R | undefined {
  if (id === undefined) return undefined;
  const rec = mapOf(store, spec).get(id);
  return rec && rec.lang === lang ? rec : undefined;
}

/** Invalid write arguments, in the order the site declares them. */
export function invalidWrite<R extends Linked>(store: Store, site: SiteConfig, spec: LinkedSpec<R>, params: Params): string[] {
  const bad: string[] = [];
  if (isSet(params.author) && toId(params.author) !== 1) bad.push('author');
  if (isSet(params.date) && !isDateValue(site, params.date)) bad.push('date');
  if (isSet(params.date_utc) && !isDateValue(site, params.date_utc)) bad.push('date_utc');
  if (isSet(params[spec.nameArg]) && !isNonEmptyString(asText(params[spec.nameArg]))) bad.push(spec.nameArg);
  if (isSet(params.description) && asText(params.description) === undefined) bad.push('description');
  if (isSet(params.status) && !isPostStatus(params.status)) bad.push('status');
  bad.push(...spec.invalid(params));
  if (isSet(params.image) && params.image !== '' && !isImageValue(store, params.image)) bad.push('image');
  return bad;
}

function fieldsFrom<R extends Linked>(spec: LinkedSpec<R>, params: Params, previous?: R['fields']): R['fields'] {
  const out = {} as Record<string, string>;
  for (const f of spec.fields) out[f] = asText(params[f]) ?? (previous ? (previous as Record<string, string>)[f] : '');
  return out as R['fields'];
}

/**
 * The site's de-duplication on create (Venue/Organizer::create through Tribe__Duplicate__Post):
 * it compares the post fields only, the same title and, when one is sent, the same description;
 * the address, city, e-mail… fields it declares are not in the data it matches, so a same-named
 * venue elsewhere is "the same". Trashed records are skipped; the oldest match wins.
 */
function findDuplicate<R extends Linked>(store: Store, spec: LinkedSpec<R>, lang: string, params: Params, title: string): R | undefined {
  const description = asText(params.description);
  for (const rec of mapOf(store, spec).values()) {
    if (rec.lang !== lang || rec.status === 'trash' || rec.title !== title) continue;
    if (description && rec.description !== description) continue;
    return rec;
  }
  return undefined;
}

/**
 * Creates a venue/organizer, or returns the one the site takes for the same (see findDuplicate;
 * still 201) after writing the fields sent over its own, as the site saves the sent meta on it.
 * Its status and modification time stay as they were.
 */
export function createLinked<R extends Linked>(store: Store, site: SiteConfig, spec: LinkedSpec<R>, lang: string, params: Params): R {
  const title = asText(params[spec.nameArg])?.trim();
  if (!title) throw couldNotCreate(spec.kind);
  const dup = findDuplicate(store, spec, lang, params, title);
  if (dup) {
    store.changePost(dup, (r) => {
      const fields = r.fields as Record<string, string>;
      for (const f of spec.fields) if (isSet(params[f])) fields[f] = asText(params[f]) ?? fields[f]!;
    });
    return dup;
  }
  const base = newPostBase(store, site, lang, params, title);
  const rec = spec.build(base, fieldsFrom(spec, params), params);
  // Venues and organizers take no `slug` argument: the slug always comes from the name.
  rec.slug = settleSlug(store, spec.kind, rec, undefined);
  store.addPost(rec);
  return rec;
}

/** An inline venue/organizer object inside an event write: created (or reused) like POST would. */
export function createInline<R extends Linked>(store: Store, site: SiteConfig, spec: LinkedSpec<R>, lang: string, data: Params): R {
  if (invalidWrite(store, site, spec, data).length) throw couldNotCreate(spec.kind);
  return createLinked(store, site, spec, lang, data);
}

/**
 * Updates keep omitted fields (unlike events), except: omitted `status` → publish, and the
 * kind's own rules (venues: show_map/show_map_link back to true, stateprovince recomputed).
 */
function updateLinked<R extends Linked>(ctx: Ctx, spec: LinkedSpec<R>, rec: R): R {
  const p = ctx.params;
  ctx.store.changePost(rec, (r) => {
    r.status = typeof p.status === 'string' ? p.status : 'publish';
    const title = asText(p[spec.nameArg]);
    if (title) r.title = title.trim();
    const description = asText(p.description);
    if (description !== undefined) r.description = description;
    if (isSet(p.author)) r.author = 1;
    if (isSet(p.date) || isSet(p.date_utc)) Object.assign(r, publicationDates(ctx.site, p, r.status));
    else if (r.dateUtc.startsWith('0000') && r.status === 'publish') r.dateUtc = nowStamps(ctx.site).utc;
    if (isSet(p.image)) r.image = p.image === '' ? null : resolveImage(ctx.store, p.image);
    r.fields = fieldsFrom(spec, p, r.fields);
    spec.onUpdate(r, p);
    r.slug = settleSlug(ctx.store, spec.kind, r, undefined);
    touch(ctx.site, r);
  });
  // WordPress fires `trash_<post type>` on every save with the trash status, an update's included.
  if (rec.status === 'trash') unlinkTrashed(ctx.store, ctx.site, rec);
  return rec;
}

// ---------------------------------------------------------------------------------------------
// endpoints

const byIdArgs = { id: { required: true, type: 'integer' } };
const bySlugArgs = { slug: { required: true, type: 'string' } };

export function linkedEndpoints<R extends Linked>(spec: LinkedSpec<R>): {
  list: Endpoint; create: Endpoint; read: Endpoint; update: Endpoint; remove: Endpoint;
  readBySlug: Endpoint; updateBySlug: Endpoint; removeBySlug: Endpoint;
} {
  const writeArgs: Endpoint['args'] = {};
  for (const a of ['author', 'date', 'date_utc', spec.nameArg, 'description', 'status', ...(spec.kind === 'venue' ? ['show_map', 'show_map_link'] : []), ...spec.fields, 'image']) {
    writeArgs[a] = { type: a === 'author' ? 'integer' : 'string' };
  }

  const byId = (ctx: Ctx): R | undefined => findLinked(ctx.store, spec, ctx.lang, toId(ctx.path.id));
  const bySlug = (ctx: Ctx): R | undefined => ctx.store.findBySlug(spec.kind, ctx.lang, ctx.path.slug) as R | undefined;
  const idCheck = (ctx: Ctx): ApiError | undefined => (byId(ctx) ? undefined : invalidParams(['id']));
  const slugCheck = (ctx: Ctx): ApiError | undefined => (bySlug(ctx) ? undefined : invalidParams(['slug']));

  const read = (ctx: Ctx, rec: R) => {
    if (rec.status !== 'publish' && !ctx.authed) throw notAccessible(spec.kind);
    return { status: 200, body: spec.render(ctx.store, rec, ctx.rc, true) };
  };
  const remove = (ctx: Ctx, rec: R) => {
    if (rec.status === 'trash') throw inTrash(spec.kind);
    trash(ctx.store, ctx.site, rec);
    unlinkTrashed(ctx.store, ctx.site, rec);
    return { status: 200, body: spec.render(ctx.store, rec, ctx.rc) };
  };
  const writeCheck = (ctx: Ctx, lookup?: (ctx: Ctx) => ApiError | undefined): ApiError | undefined => {
    const bad = [
      ...(lookup?.(ctx) ? [ctx.path.id !== undefined ? 'id' : 'slug'] : []),
      ...invalidWrite(ctx.store, ctx.site, spec, ctx.params),
    ];
    return bad.length ? invalidParams(bad) : undefined;
  };

  return {
    list: {
      auth: false,
      args: { page: { type: 'integer', default: 1 }, per_page: { type: 'integer' }, search: { type: 'string' }, event: { type: 'integer' }, has_events: {}, only_with_upcoming: { default: false }, status: { type: 'string' } },
      validate: (ctx) => {
        const bad = invalidPaging(ctx);
        if (isSet(ctx.params.search) && typeof ctx.params.search !== 'string') bad.push('search');
        if (isSet(ctx.params.event)) {
          const ev = ctx.store.events.get(toId(ctx.params.event) ?? -1);
          if (!ev || ev.lang !== ctx.lang) bad.push('event');
        }
        if (!listStatuses(ctx)) bad.push('status');
        return bad.length ? invalidParams(bad) : undefined;
      },
      handle: (ctx) => listLinked(ctx, spec),
    },
    create: {
      auth: true,
      required: [spec.nameArg],
      args: { ...writeArgs, [spec.nameArg]: { required: true, type: 'string' } },
      validate: (ctx) => writeCheck(ctx),
      handle: (ctx) => ({ status: 201, body: spec.render(ctx.store, createLinked(ctx.store, ctx.site, spec, ctx.lang, ctx.params), ctx.rc) }),
    },
    read: { auth: false, args: byIdArgs, validate: idCheck, handle: (ctx) => read(ctx, byId(ctx) as R) },
    update: {
      auth: true,
      args: { ...byIdArgs, ...writeArgs },
      validate: (ctx) => writeCheck(ctx, idCheck),
      handle: (ctx) => ({ status: 200, body: spec.render(ctx.store, updateLinked(ctx, spec, byId(ctx) as R), ctx.rc) }),
    },
    remove: { auth: true, args: byIdArgs, validate: idCheck, handle: (ctx) => remove(ctx, byId(ctx) as R) },
    readBySlug: { auth: false, args: bySlugArgs, validate: slugCheck, handle: (ctx) => read(ctx, bySlug(ctx) as R) },
    updateBySlug: {
      auth: true,
      args: { ...bySlugArgs, ...writeArgs },
      validate: (ctx) => writeCheck(ctx, slugCheck),
      handle: (ctx) => ({ status: 200, body: spec.render(ctx.store, updateLinked(ctx, spec, bySlug(ctx) as R), ctx.rc) }),
    },
    removeBySlug: { auth: true, args: bySlugArgs, validate: slugCheck, handle: (ctx) => remove(ctx, bySlug(ctx) as R) },
  };
}

function matchesSearch(rec: Linked, words: string[]): boolean {
  const haystacks = [rec.title, rec.description, ...Object.values(rec.fields)].map((s) => s.toLowerCase());
  // Every word has to appear in one and the same field.
  return haystacks.some((h) => words.every((w) => h.includes(w)));
}

function listLinked<R extends Linked>(ctx: Ctx, spec: LinkedSpec<R>) {
  const { page, perPage } = paging(ctx);
  const st = listStatuses(ctx)!;
  const p = ctx.params;
  const words = typeof p.search === 'string' ? p.search.toLowerCase().split(/\s+/).filter(Boolean) : [];
  let related: Set<number> | undefined;
  if (isSet(p.event)) {
    const ev = ctx.store.events.get(toId(p.event)!)!;
    related = new Set(spec.kind === 'venue' ? (ev.venue === null ? [] : [ev.venue]) : ev.organizers);
  }
  // Real sites: `has_events=true` keeps those linked to any event, any false spelling (`false`,
  // `0`, empty) keeps only those linked to none.
  const hasEvents = isSet(p.has_events) ? toBool(p.has_events) : undefined;
  const upcoming = isSet(p.only_with_upcoming) && toBool(p.only_with_upcoming) === true ? upcomingLinks(ctx) : undefined;
  const all: R[] = [];
  for (const rec of mapOf(ctx.store, spec).values()) {
    if (rec.lang !== ctx.lang || !st.statuses.has(rec.status)) continue;
    if (words.length && !matchesSearch(rec, words)) continue;
    if (related && !related.has(rec.id)) continue;
    if (hasEvents !== undefined && (ctx.store.linkCount(rec.id) > 0) !== hasEvents) continue;
    if (upcoming && !upcoming.has(rec.id)) continue;
    all.push(rec);
  }
  all.sort(byPostDate(page));
  const query: [string, string][] = [];
  for (const k of ['search', 'event', 'has_events', 'only_with_upcoming']) if (isSet(p[k])) query.push([k, String(p[k])]);
  query.push(['status', st.label]);
  return archiveReply(spec.kind, collectionUrl(ctx.rc, spec.collection), query, all, page, perPage,
    (rec) => spec.render(ctx.store, rec, ctx.rc));
}

/**
 * Newest first by post date, as the site lists them. The site orders by that date alone, and
 * MySQL gives records of the same second in no stable order from one page to the next: records
 * created in one second (a bulk import's venues) can show up on two pages and miss every page
 * (test/contract/linked-paging.test.ts). The sandbox makes that certain: ties go newest first by
 * id on odd pages and oldest first on even ones.
 */
function byPostDate(page: number): (a: PostBase, b: PostBase) => number {
  const tie = page % 2 === 1 ? -1 : 1;
  return (a, b) => (a.date === b.date ? tie * (a.id - b.id) : a.date < b.date ? 1 : -1);
}

/** Venues/organizers of published events that have not ended yet. */
function upcomingLinks(ctx: Ctx): Set<number> {
  const now = nowStamps(ctx.site).local;
  const ids = new Set<number>();
  for (const ev of ctx.store.sortedEvents(ctx.lang)) {
    if (ev.status !== 'publish' || ev.end < now) continue;
    if (ev.venue !== null) ids.add(ev.venue);
    for (const o of ev.organizers) ids.add(o);
  }
  return ids;
}
