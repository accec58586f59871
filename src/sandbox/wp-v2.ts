import type { Reply } from './context.ts';
import { ApiError, invalidParams } from './errors.ts';
import { isSet, toList, toPositiveInt, type Params } from './params.ts';
import type { PostBase } from './records.ts';
import type { Store } from './store.ts';

/**
 * WordPress core's `/wp/v2/<post type>` list for TEC's post types, only as far as a sync reads
 * it: `context=edit` for the text as its author typed it (`title.raw`, `content.raw`,
 * `excerpt.raw`), narrowed with `include`. TEC registers these types with `show_in_rest`, and
 * `context=edit` needs a user who may edit them (else 401 rest_forbidden_context). The sandbox
 * does not texturize, so `rendered` is the stored text; what real sites render differs (curly
 * quotes, dashes, `&#038;`), which is why a sync reads `raw`.
 */
const TYPES = { tribe_events: 'events', tribe_venue: 'venues', tribe_organizer: 'organizers' } as const;
type PostType = keyof typeof TYPES;

export function wpV2PostType(restPath: string): PostType | undefined {
  const m = /^\/wp\/v2\/(tribe_events|tribe_venue|tribe_organizer)\/?$/.exec(restPath);
  return m ? (m[1] as PostType) : undefined;
}

function render(rec: PostBase, type: PostType, edit: boolean, fields: string[] | undefined): Record<string, unknown> {
  const text = (s: string) => (edit ? { raw: s, rendered: s } : { rendered: s });
  const full: Record<string, unknown> = {
    id: rec.id,
    slug: rec.slug,
    status: rec.status,
    type,
    modified_gmt: rec.modifiedUtc.replace(' ', 'T'),
    title: text(rec.title),
    content: { ...text(rec.description), protected: false },
    excerpt: { ...text(rec.excerpt), protected: false },
  };
  if (!fields) return full;
  return Object.fromEntries(Object.entries(full).filter(([k]) => fields.includes(k)));
}

export function wpV2List(store: Store, type: PostType, query: Params, authed: boolean, lang: string): Reply {
  const context = isSet(query.context) ? String(query.context) : 'view';
  const bad: string[] = [];
  if (!['view', 'embed', 'edit'].includes(context)) bad.push('context');
  const perPage = isSet(query.per_page) ? toPositiveInt(query.per_page) : 10;
  if (perPage === undefined || perPage > 100) bad.push('per_page');
  const include = isSet(query.include) ? toList(query.include).map(toPositiveInt) : undefined;
  if (include?.some((n) => n === undefined)) bad.push('include');
  if (bad.length) throw invalidParams(bad);
  if (context === 'edit' && !authed) {
    throw new ApiError(401, 'rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.');
  }
  const status = isSet(query.status) ? toList(query.status).map(String) : ['publish'];
  const wanted = include ? new Set(include as number[]) : undefined;
  const map = store[TYPES[type]] as Map<number, PostBase>;
  const all = [...map.values()]
    .filter((r) => r.lang === lang && (status.includes('any') ? r.status !== 'trash' : status.includes(r.status)) && (!wanted || wanted.has(r.id)))
    .sort((a, b) => b.id - a.id);
  const fields = isSet(query._fields) ? toList(query._fields).map(String) : undefined;
  const items = all.slice(0, perPage).map((r) => render(r, type, context === 'edit', fields));
  const pages = Math.max(1, Math.ceil(all.length / (perPage as number)));
  return { status: 200, body: items, headers: { 'X-WP-Total': String(all.length), 'X-WP-TotalPages': String(pages) } };
}
