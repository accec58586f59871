import type { Ctx, Endpoint, Reply } from './context.ts';
import { ApiError, invalidParams } from './errors.ts';
import { invalidPaging, paging } from './paging.ts';
import { asText, isNonEmptyString, isPhpNonEmptyString, isSet, sanitizeSlug, toBool, toId, toList, toPositiveInt } from './params.ts';
import type { Taxonomy, TermRecord } from './records.ts';
import { collectionUrl, renderTerm } from './shapes.ts';
import type { Store } from './store.ts';

/**
 * Event categories and tags: WordPress terms, one set per language. A term's `count` is the number
 * of non-trashed events using it, and lists hide empty terms unless `hide_empty=false`.
 */

interface TermKind {
  taxonomy: Taxonomy;
  collection: 'categories' | 'tags';
  hierarchical: boolean;
}

const CATEGORIES: TermKind = { taxonomy: 'tribe_events_cat', collection: 'categories', hierarchical: true };
const TAGS: TermKind = { taxonomy: 'post_tag', collection: 'tags', hierarchical: false };

const ORDERBY = ['id', 'include', 'name', 'slug', 'term_group', 'description', 'count'];

export function findTermById(store: Store, taxonomy: Taxonomy, lang: string, id: number | undefined): TermRecord | undefined {
  const t = id === undefined ? undefined : store.terms.get(id);
  return t && t.taxonomy === taxonomy && t.lang === lang ? t : undefined;
}

function uniqueTermSlug(store: Store, taxonomy: Taxonomy, lang: string, desired: string, selfId?: number): string {
  const taken = new Set(store.termsOf(taxonomy, lang).filter((t) => t.id !== selfId).map((t) => t.slug));
  if (!taken.has(desired)) return desired;
  let n = 2;
  while (taken.has(`${desired}-${n}`)) n++;
  return `${desired}-${n}`;
}

function newTerm(store: Store, taxonomy: Taxonomy, lang: string, name: string, slug?: string, description = '', parent = 0): TermRecord {
  const t: TermRecord = {
    id: store.nextTermId(), lang, taxonomy, name, description, parent,
    slug: uniqueTermSlug(store, taxonomy, lang, sanitizeSlug(slug ?? name) || 'term'),
  };
  store.addTerm(t);
  return t;
}

/**
 * Terms named on an event write: numeric values are ids (unknown ones are silently dropped),
 * other values are looked up by slug or name and created when missing. Duplicates collapse.
 */
export function resolveEventTerms(store: Store, taxonomy: Taxonomy, lang: string, value: unknown): number[] {
  const ids: number[] = [];
  for (const item of toList(value)) {
    const text = asText(item)?.trim();
    if (!text) continue;
    let id: number | undefined;
    if (/^\d+$/.test(text)) id = findTermById(store, taxonomy, lang, Number(text))?.id;
    else id = (store.findTerm(taxonomy, lang, text) ?? newTerm(store, taxonomy, lang, text)).id;
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The `categories`/`tags` list filter on /events: ids or slugs, every one must exist. */
export function filterTermIds(store: Store, taxonomy: Taxonomy, lang: string, value: unknown): number[] | undefined {
  const ids: number[] = [];
  for (const item of toList(value)) {
    const text = asText(item)?.trim() ?? '';
    const t = /^\d+$/.test(text)
      ? findTermById(store, taxonomy, lang, Number(text))
      : store.termsOf(taxonomy, lang).find((x) => x.slug === text.toLowerCase());
    if (!t) return undefined;
    ids.push(t.id);
  }
  return ids.length ? ids : undefined;
}

function termExists(t: TermRecord, hierarchical: boolean): ApiError {
  return new ApiError(400, 'term_exists', hierarchical
    ? 'A term with the name provided already exists with this parent.'
    : 'A term with the name provided already exists in this taxonomy.', { term_id: t.id }, { additional_data: [t.id, t.id] });
}

function duplicateSlug(slug: string): ApiError {
  return new ApiError(400, 'duplicate_term_slug', `The slug “${slug}” is already in use by another term.`);
}

function termEndpoints(kind: TermKind): { list: Endpoint; create: Endpoint; read: Endpoint; update: Endpoint; remove: Endpoint } {
  return {
    list: termListEndpoint(kind),
    create: termCreateEndpoint(kind),
    read: { auth: false, args: { id: { required: true, type: 'integer' } }, validate: (ctx) => termIdCheck(ctx, kind), handle: (ctx) => ({ status: 200, body: renderTerm(ctx.store, termById(ctx, kind)!, ctx.rc) }) },
    update: termUpdateEndpoint(kind),
    remove: termRemoveEndpoint(kind),
  };
}

const termById = (ctx: Ctx, kind: TermKind): TermRecord | undefined => findTermById(ctx.store, kind.taxonomy, ctx.lang, toId(ctx.path.id));
const termIdCheck = (ctx: Ctx, kind: TermKind): ApiError | undefined => (termById(ctx, kind) ? undefined : invalidParams(['id']));

function termWriteArgs(kind: TermKind): Endpoint['args'] {
  const writeArgs: Endpoint['args'] = { name: { type: 'string' }, description: { type: 'string' }, slug: { type: 'string' } };
  if (kind.hierarchical) writeArgs.parent = { type: 'integer' };
  return writeArgs;
}

function invalidTermWrite(ctx: Ctx, kind: TermKind): string[] {
  const p = ctx.params;
  const bad: string[] = [];
  if (isSet(p.name) && !isNonEmptyString(asText(p.name))) bad.push('name');
  // Real sites: `description: ""` (or null) → 400, so a description cannot be cleared through v1.
  if (p.description !== undefined && !isPhpNonEmptyString(p.description)) bad.push('description');
  if (isSet(p.slug) && asText(p.slug) === undefined) bad.push('slug');
  if (kind.hierarchical && isSet(p.parent) && p.parent !== 0 && p.parent !== '0'
    && !findTermById(ctx.store, kind.taxonomy, ctx.lang, toId(p.parent))) bad.push('parent');
  return bad;
}

function termListEndpoint(kind: TermKind): Endpoint {
  return {
    auth: false,
    args: {
      page: { type: 'integer', default: 1 }, per_page: { type: 'integer' }, search: { type: 'string' }, exclude: { type: 'array' },
      include: { type: 'array' }, order: { type: 'string' }, orderby: { type: 'string' }, hide_empty: { type: 'boolean', default: true },
      ...(kind.hierarchical ? { parent: { type: 'integer' } } : {}), post: { type: 'integer' }, event: { type: 'integer' }, slug: { type: 'string' },
    },
    validate: (ctx) => {
      const p = ctx.params;
      const bad = invalidPaging(ctx);
      for (const k of ['exclude', 'include']) if (isSet(p[k]) && !toList(p[k]).every((v) => toPositiveInt(v) !== undefined)) bad.push(k);
      if (isSet(p.orderby) && !ORDERBY.includes(String(p.orderby))) bad.push('orderby');
      if (isSet(p.hide_empty) && toBool(p.hide_empty) === undefined) bad.push('hide_empty');
      if (kind.hierarchical && isSet(p.parent) && toPositiveInt(p.parent) === undefined) bad.push('parent');
      for (const k of ['post', 'event']) {
        if (!isSet(p[k])) continue;
        const ev = ctx.store.events.get(toId(p[k]) ?? -1);
        if (!ev || ev.lang !== ctx.lang) bad.push(k);
      }
      return bad.length ? invalidParams(bad) : undefined;
    },
    handle: (ctx) => listTerms(ctx, kind),
  };
}

function termCreateEndpoint(kind: TermKind): Endpoint {
  return {
    auth: true,
    required: ['name'],
    args: { ...termWriteArgs(kind), name: { required: true, type: 'string' } },
    validate: (ctx) => {
      const bad = invalidTermWrite(ctx, kind);
      return bad.length ? invalidParams(bad) : undefined;
    },
    handle: (ctx) => {
      const p = ctx.params;
      const name = (asText(p.name) as string).trim();
      const parent = kind.hierarchical ? toId(p.parent) ?? 0 : 0;
      const dup = ctx.store.termsOf(kind.taxonomy, ctx.lang).find((t) => t.name.toLowerCase() === name.toLowerCase() && t.parent === parent);
      if (dup) throw termExists(dup, kind.hierarchical);
      const slug = asText(p.slug);
      if (slug !== undefined && ctx.store.termsOf(kind.taxonomy, ctx.lang).some((t) => t.slug === sanitizeSlug(slug))) throw duplicateSlug(sanitizeSlug(slug));
      const t = newTerm(ctx.store, kind.taxonomy, ctx.lang, name, slug, asText(p.description) ?? '', parent);
      return { status: 201, body: renderTerm(ctx.store, t, ctx.rc) };
    },
  };
}

function termUpdateEndpoint(kind: TermKind): Endpoint {
  return {
    auth: true,
    args: { id: { required: true, type: 'integer' }, ...termWriteArgs(kind) },
    validate: (ctx) => {
      const bad = [...(termById(ctx, kind) ? [] : ['id']), ...invalidTermWrite(ctx, kind)];
      return bad.length ? invalidParams(bad) : undefined;
    },
    handle: (ctx) => {
      const t = termById(ctx, kind)!;
      const p = ctx.params;
      const slug = asText(p.slug);
      if (slug !== undefined && ctx.store.termsOf(kind.taxonomy, ctx.lang).some((x) => x.id !== t.id && x.slug === sanitizeSlug(slug))) {
        throw duplicateSlug(sanitizeSlug(slug));
      }
      ctx.store.changeTerm(t, (term) => {
        const name = asText(p.name);
        if (name) term.name = name.trim();
        const description = asText(p.description);
        if (description !== undefined) term.description = description;
        if (slug !== undefined) term.slug = sanitizeSlug(slug) || term.slug;
        if (kind.hierarchical && isSet(p.parent)) term.parent = toId(p.parent) ?? 0;
      });
      return { status: 200, body: renderTerm(ctx.store, t, ctx.rc) };
    },
  };
}

function termRemoveEndpoint(kind: TermKind): Endpoint {
  return {
    auth: true,
    args: { id: { required: true, type: 'integer' } },
    validate: (ctx) => termIdCheck(ctx, kind),
    handle: (ctx) => {
      const t = termById(ctx, kind)!;
      const body = renderTerm(ctx.store, t, ctx.rc);
      ctx.store.deleteTerm(t);
      return { status: 200, body };
    },
  };
}

function listTerms(ctx: Ctx, kind: TermKind): Reply {
  const p = ctx.params;
  const { page, perPage } = paging(ctx);
  const store = ctx.store;
  const hideEmpty = isSet(p.hide_empty) ? toBool(p.hide_empty) === true : true;
  const include = isSet(p.include) ? new Set(toList(p.include).map(Number)) : undefined;
  const exclude = new Set(toList(p.exclude).map(Number));
  const search = typeof p.search === 'string' ? p.search.toLowerCase() : '';
  const parent = kind.hierarchical && isSet(p.parent) ? toPositiveInt(p.parent) : undefined;
  const eventId = toId(p.post ?? p.event);
  const ofEvent = eventId === undefined ? undefined : new Set(store.events.get(eventId)![kind.collection]);
  const slug = typeof p.slug === 'string' ? p.slug : undefined;

  const all = store.termsOf(kind.taxonomy, ctx.lang).filter((t) =>
    (!hideEmpty || store.linkCount(t.id) > 0)
    && (!include || include.has(t.id))
    && !exclude.has(t.id)
    && (!search || t.name.toLowerCase().includes(search) || t.slug.includes(search))
    && (parent === undefined || t.parent === parent)
    && (!ofEvent || ofEvent.has(t.id))
    && (slug === undefined || t.slug === slug));

  const orderby = typeof p.orderby === 'string' ? p.orderby : 'name';
  const key = (t: TermRecord): string | number =>
    orderby === 'id' || orderby === 'include' ? t.id
      : orderby === 'count' ? store.linkCount(t.id)
        : orderby === 'slug' ? t.slug : orderby === 'description' ? t.description : orderby === 'term_group' ? 0 : t.name.toLowerCase();
  // Only an explicit "asc" (the default) sorts ascending; anything else sorts descending.
  const dir = !isSet(p.order) || String(p.order).toLowerCase() === 'asc' ? 1 : -1;
  all.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * dir;
  });

  const total = all.length;
  const totalPages = Math.ceil(total / perPage);
  const coll = collectionUrl(ctx.rc, kind.collection);
  // A page past the end is an empty 200 here, unlike the post archives.
  const items = all.slice((page - 1) * perPage, page * perPage).map((t) => renderTerm(store, t, ctx.rc));
  const body: Record<string, unknown> = { rest_url: `${coll}/`, total, total_pages: totalPages, [kind.collection]: items };
  if (page < totalPages) body.next_rest_url = `${coll}/?page=${page + 1}`;
  if (page > 1 && page <= totalPages) body.previous_rest_url = page === 2 ? `${coll}/` : `${coll}/?page=${page - 1}`;
  return { status: 200, body, headers: { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(totalPages) } };
}

export const categoryEndpoints = termEndpoints(CATEGORIES);
export const tagEndpoints = termEndpoints(TAGS);
