import { nowWall, type Reply, type SiteConfig } from './context.ts';
import { wallOf } from './dates.ts';
import { ApiError, invalidParams } from './errors.ts';
import { isSet, toList, toPositiveInt, type Params } from './params.ts';
import type { EventRecord, PostBase, PostRecord } from './records.ts';
import type { Store } from './store.ts';

/**
 * WordPress core's `/wp/v2/<post type>` list for TEC's post types, only as far as a sync reads
 * it: `context=edit` for the text as its author typed it (`title.raw`, `content.raw`,
 * `excerpt.raw`), narrowed with `include`, paged with `page` (400 rest_post_invalid_page_number past
 * the last page), and the route for one post by id. TEC registers these
 * types with `show_in_rest`, and `context=edit` needs a user who may edit them (else 401
 * rest_forbidden_context). The sandbox does not texturize, so `rendered` is the stored text; what
 * real sites render differs (curly quotes, dashes, `&#038;`), which is why a sync reads `raw`.
 *
 * As on real sites, the event list holds only events that have not ended (their local end at or
 * after the site's local now): TEC narrows every event query without dates of its own that way.
 * The route for one event is not narrowed (test/contract/wp-v2-ended.test.ts).
 */
const TYPES = { tribe_events: 'events', tribe_venue: 'venues', tribe_organizer: 'organizers' } as const;
type PostType = keyof typeof TYPES;

/** A wp/v2 route of TEC's post types: the list (no id) or one post. */
export interface WpV2Route {
  type: PostType;
  id?: number;
}

export function wpV2Route(restPath: string): WpV2Route | undefined {
  const m = /^\/wp\/v2\/(tribe_events|tribe_venue|tribe_organizer)(?:\/(\d+))?\/?$/.exec(restPath);
  if (!m) return undefined;
  return m[2] === undefined ? { type: m[1] as PostType } : { type: m[1] as PostType, id: Number(m[2]) };
}

function render(rec: PostBase, type: PostType, edit: boolean): Record<string, unknown> {
  const text = (s: string) => (edit ? { raw: s, rendered: s } : { rendered: s });
  return {
    id: rec.id,
    slug: rec.slug,
    status: rec.status,
    type,
    modified_gmt: rec.modifiedUtc.replace(' ', 'T'),
    title: text(rec.title),
    content: { ...text(rec.description), protected: false },
    excerpt: { ...text(rec.excerpt), protected: false },
  };
}

/** What a GET on a wp/v2 route answers. */
export function wpV2Get(store: Store, site: SiteConfig, route: WpV2Route, query: Params, authed: boolean, lang: string): Reply {
  return route.id === undefined ? wpV2List(store, site, route.type, query, authed, lang) : wpV2One(store, route.type, route.id, query, authed);
}

function contextOf(query: Params, bad: string[]): string {
  const context = isSet(query.context) ? String(query.context) : 'view';
  if (!['view', 'embed', 'edit'].includes(context)) bad.push('context');
  return context;
}

function wpV2One(store: Store, type: PostType, id: number, query: Params, authed: boolean): Reply {
  const bad: string[] = [];
  const context = contextOf(query, bad);
  if (bad.length) throw invalidParams(bad);
  const rec = (store[TYPES[type]] as Map<number, PostBase>).get(id);
  if (!rec) throw new ApiError(404, 'rest_post_invalid_id', 'Invalid post ID.');
  if (context === 'edit' && !authed) throw new ApiError(401, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this post.');
  if (rec.status !== 'publish' && !authed) throw new ApiError(401, 'rest_forbidden', 'Sorry, you are not allowed to view this post.');
  return { status: 200, body: render(rec, type, context === 'edit') };
}

/**
 * `DELETE /wp/v2/<type>/<id>?force=true`: the post deleted for good, as WordPress core does it
 * (`{deleted: true, previous}`). Events that linked a venue or organizer so deleted keep its id,
 * which every later write naming it is refused for (400 `rest_invalid_param` venue/organizer), and
 * `GET /venues/<id>` answers 400 `rest_invalid_param` id (test/contract/linked-deleted.test.ts).
 * Without `force` core would move the post to the trash; only the v1 routes do that here.
 */
export function wpV2Delete(store: Store, route: WpV2Route, query: Params, authed: boolean): Reply {
  if (!authed) throw new ApiError(401, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.');
  const rec = route.id === undefined ? undefined : (store[TYPES[route.type]] as Map<number, PostBase>).get(route.id);
  if (!rec) throw new ApiError(404, 'rest_post_invalid_id', 'Invalid post ID.');
  if (query.force !== true && query.force !== 'true' && query.force !== '1') throw new ApiError(501, 'rest_trash_not_supported', 'The sandbox deletes wp/v2 posts for good only (force=true); the v1 routes move them to the trash.');
  const previous = render(rec, route.type, true);
  store.deletePost(rec as PostRecord);
  return { status: 200, body: { deleted: true, previous } };
}

/** An event the list leaves out: it ended before the site's local now (compared as TEC does, wall clock to wall clock). */
function ended(rec: PostBase, site: SiteConfig): boolean {
  const end = (rec as Partial<EventRecord>).end;
  return end !== undefined && wallOf(end) < nowWall(site);
}

function wpV2List(store: Store, site: SiteConfig, type: PostType, query: Params, authed: boolean, lang: string): Reply {
  const bad: string[] = [];
  const context = contextOf(query, bad);
  const perPage = isSet(query.per_page) ? toPositiveInt(query.per_page) : 10;
  if (perPage === undefined || perPage > 100) bad.push('per_page');
  const include = isSet(query.include) ? toList(query.include).map(toPositiveInt) : undefined;
  if (include?.some((n) => n === undefined)) bad.push('include');
  const page = isSet(query.page) ? toPositiveInt(query.page) : 1;
  if (page === undefined) bad.push('page');
  if (bad.length) throw invalidParams(bad);
  if (context === 'edit' && !authed) {
    throw new ApiError(401, 'rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.');
  }
  const status = isSet(query.status) ? toList(query.status).map(String) : ['publish'];
  const wanted = include ? new Set(include as number[]) : undefined;
  const map = store[TYPES[type]] as Map<number, PostBase>;
  const all = [...map.values()]
    .filter((r) => r.lang === lang && (status.includes('any') ? r.status !== 'trash' : status.includes(r.status)) && (!wanted || wanted.has(r.id)))
    .filter((r) => type !== 'tribe_events' || !ended(r, site))
    .sort((a, b) => (query.order === 'asc' ? a.id - b.id : b.id - a.id));
  const pages = Math.max(1, Math.ceil(all.length / (perPage as number)));
  // As WordPress core: a page past the last is refused (the first page of an empty list is not).
  if ((page as number) > pages) throw new ApiError(400, 'rest_post_invalid_page_number', 'The page number requested is larger than the number of pages available.');
  const from = ((page as number) - 1) * (perPage as number);
  const items = all.slice(from, from + (perPage as number)).map((r) => render(r, type, context === 'edit'));
  return { status: 200, body: items, headers: { 'X-WP-Total': String(all.length), 'X-WP-TotalPages': String(pages) } };
}
