import { formatWall, instantToWall, isTimeValue, localToUtc, parseDateInput } from './dates.ts';
import { nowStamps, nowWall, type SiteConfig } from './context.ts';
import { isUrl, sanitizeSlug, toId, type Params } from './params.ts';
import { POST_STATUSES, UNPUBLISHED, type PostBase, type PostKind, type PostRecord } from './records.ts';
import type { Store } from './store.ts';

/**
 * What events, venues and organizers share as WordPress posts: status, slugs, publication and
 * modification dates, trash, featured image.
 */

const ZERO_DATE = '0000-00-00 00:00:00';
const TRASHED = '__trashed';

export function isPostStatus(v: unknown): v is string {
  return typeof v === 'string' && POST_STATUSES.includes(v);
}

/** The `image` argument: an existing attachment id or an image URL (sideloaded on write). */
export function isImageValue(store: Store, v: unknown): boolean {
  const id = toId(v);
  if (id !== undefined) return store.attachments.has(id);
  return isUrl(v) && /^https?:/i.test(v);
}

export function resolveImage(store: Store, v: unknown): number | null {
  const id = toId(v);
  if (id !== undefined) return id;
  return isUrl(v) ? store.attachmentFor(v).id : null;
}

/** `date`/`date_utc` arguments are validated like any date. */
export function isDateValue(site: SiteConfig, v: unknown): boolean {
  return isTimeValue(v, nowWall(site)) && parseDateInput(v, nowWall(site)) !== undefined;
}

/**
 * Publication date for a write: the given `date` (site-local) or `date_utc`, else now. Drafts
 * without a date carry a zero GMT date, as WordPress stores them.
 */
export function publicationDates(site: SiteConfig, params: Params, status: string): Pick<PostBase, 'date' | 'dateUtc'> {
  const wallNow = nowWall(site);
  if (params.date_utc !== undefined && params.date_utc !== null) {
    // A UTC wall reading is the instant itself.
    const instant = parseDateInput(params.date_utc, wallNow) as number;
    return { date: formatWall(instantToWall(instant, site.siteTimezone)), dateUtc: formatWall(instant) };
  }
  if (params.date !== undefined && params.date !== null) {
    const local = formatWall(parseDateInput(params.date, wallNow) as number);
    return { date: local, dateUtc: localToUtc(local, site.siteTimezone) };
  }
  const now = nowStamps(site);
  return { date: now.local, dateUtc: UNPUBLISHED.has(status) ? ZERO_DATE : now.utc };
}

/** Bumps `modified`; drafts show a zero `modified_utc` (seen on live sites). */
export function touch(site: SiteConfig, rec: PostBase): void {
  const now = nowStamps(site);
  rec.modified = now.local;
  rec.modifiedUtc = UNPUBLISHED.has(rec.status) ? ZERO_DATE : now.utc;
}

function isPublished(status: string): boolean {
  return !UNPUBLISHED.has(status) && status !== 'trash';
}

/**
 * The slug a post gets when written: sanitized from `slug` (or the title when it has none), made
 * unique among published posts of its kind and language. Drafts keep what they were given,
 * possibly nothing, and need not be unique (wp_unique_post_slug skips them).
 */
export function settleSlug(store: Store, kind: PostKind, rec: PostBase, requested: string | undefined): string {
  if (rec.status === 'trash') return rec.slug;
  let slug = requested !== undefined ? sanitizeSlug(requested) : rec.slug.endsWith(TRASHED) ? rec.slug.slice(0, -TRASHED.length) : rec.slug;
  if (!isPublished(rec.status)) return slug;
  if (!slug) slug = sanitizeSlug(rec.title) || String(rec.id);
  return store.uniqueSlug(kind, rec.lang, slug, rec.id);
}

/** Moves a post to the trash the way wp_trash_post does (slug gets `__trashed`). */
export function trash(store: Store, site: SiteConfig, rec: PostRecord): void {
  store.changePost(rec, (r) => {
    r.status = 'trash';
    if (r.slug && !r.slug.endsWith(TRASHED)) r.slug = `${r.slug}${TRASHED}`;
    touch(site, r);
  });
}

/** A fresh post base for a create; the slug is settled once the title and status are known. */
export function newPostBase(store: Store, site: SiteConfig, lang: string, params: Params, title: string): PostBase {
  const status = typeof params.status === 'string' ? params.status : 'publish';
  const base: PostBase = {
    id: store.nextPostId(),
    lang,
    author: 1,
    status,
    slug: '',
    title,
    description: typeof params.description === 'string' ? params.description : '',
    excerpt: typeof params.excerpt === 'string' ? params.excerpt : '',
    ...publicationDates(site, params, status),
    modified: '',
    modifiedUtc: '',
    image: params.image !== undefined && params.image !== null ? resolveImage(store, params.image) : null,
  };
  touch(site, base);
  return base;
}
