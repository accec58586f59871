import { z } from 'zod';
import { ApiError, type CalendarClient, type EventRecord } from '../../api/index.ts';
import { eventVenue } from '../../api/index.ts';
import type { Language } from '../../model/languages.ts';

/**
 * The text of a source site's events, venues and organizers as their authors typed it.
 *
 * The v1 API returns titles and texts rendered by WordPress: `wptexturize` turns `'`, `"`, `--`
 * and `...` into typographic characters and `&` into `&#038;`, and the content gets `<p>` tags.
 * Copying that would change `Tom's "late" set` into `Tom’s “late” set` on the target. WordPress
 * core's own route for the same posts (`/wp/v2/tribe_events`, `tribe_venue`, `tribe_organizer`,
 * registered by TEC with `show_in_rest`) gives the stored text under `context=edit` (`title.raw`,
 * `content.raw`, `excerpt.raw`), to a user who may edit them. One request per page of events
 * (plus one per event of the page that has already ended: see `read`), and one per batch of
 * venues/organizers not seen before in the run.
 *
 * Without that route or that permission (401/403/404, or an answer of another shape) the reader
 * switches itself off for the run and the sync keeps the rendered text, decoded (see README).
 */

export const POST_TYPES = { events: 'tribe_events', venues: 'tribe_venue', organizers: 'tribe_organizer' } as const;
export type RawKind = keyof typeof POST_TYPES;

export interface RawText {
  title?: string;
  content?: string;
  excerpt?: string;
}

const Raw = z.object({ raw: z.string() }).partial().optional();
const RawItem = z.object({ id: z.number(), title: Raw, content: Raw, excerpt: Raw });
const RawItems = z.array(RawItem);
const FIELDS = 'id,title,content,excerpt';
const Listed = z.array(z.object({ id: z.number(), modified_gmt: z.string().optional() }));

/** WordPress core caps `per_page` at 100. */
const CHUNK = 100;

export class RawTextReader {
  private readonly client: CalendarClient;
  private readonly lang?: Language;
  /**
   * Venue and organizer texts by id, read once per run: every page of a source names the same
   * few again. In flight or done, so pages planned at the same time share one request.
   */
  private readonly linked: Record<'venues' | 'organizers', Map<number, Promise<RawText | undefined>>> = { venues: new Map(), organizers: new Map() };
  /** Why the route is not used, once it has failed; undefined while it works. */
  unavailable?: string;

  /** `client` is a client for the same site with namespace `wp/v2`. */
  constructor(client: CalendarClient, lang?: Language) {
    this.client = client;
    this.lang = lang;
  }

  /** Raw text by id; ids the route does not return (or every id, once it is unavailable) are absent. */
  async read(kind: RawKind, ids: number[]): Promise<Map<number, RawText>> {
    const out = new Map<number, RawText>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length && !this.unavailable; i += CHUNK) {
      const body = await this.fetchChunk(kind, unique.slice(i, i + CHUNK));
      for (const item of body ?? []) out.set(item.id, rawOf(item));
    }
    // A real site's event list leaves out every event that has already ended: The Events Calendar
    // narrows each event query that names no dates of its own to events ending from now on, and
    // the list route cannot name any. The route for one post is not narrowed, so those are read one
    // by one (test/contract/wp-v2-ended.test.ts); venues and organizers are never left out.
    if (kind === 'events' && !this.unavailable) {
      const left = unique.filter((id) => !out.has(id));
      const items = await Promise.all(left.map((id) => this.fetchOne(kind, id)));
      for (const item of items) if (item) out.set(item.id, rawOf(item));
    }
    return out;
  }

  /** One post by id; undefined when the site does not know it (404) or the route is not usable. */
  private async fetchOne(kind: RawKind, id: number): Promise<z.infer<typeof RawItem> | undefined> {
    const type = POST_TYPES[kind];
    let body: unknown;
    try {
      body = await this.client.request({ method: 'GET', path: `/${type}/${id}`, route: `/wp/v2/${type}/:id`, query: { context: 'edit', _fields: FIELDS } }, { lang: this.lang });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      if (this.switchedOff(err)) return undefined;
      throw err;
    }
    const parsed = RawItem.safeParse(body);
    if (!parsed.success) {
      this.unavailable ??= `/wp/v2/${type}/:id answered in an unexpected shape`;
      return undefined;
    }
    return parsed.data;
  }

  /** A refusal (4xx but 429) switches the reader off for the run; true when `err` was one. */
  private switchedOff(err: unknown): boolean {
    if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 429) return false;
    // Reads run side by side: the first refusal is the one reported.
    this.unavailable ??= `${err.method} ${err.url.replace(/\?.*$/, '')} → ${err.status} ${err.code}`;
    return true;
  }

  /** One request; undefined (and the reader switched off) when the route is not usable. */
  private async fetchChunk(kind: RawKind, chunk: number[]): Promise<z.infer<typeof RawItems> | undefined> {
    const type = POST_TYPES[kind];
    let body: unknown;
    try {
      body = await this.client.request({
        method: 'GET',
        path: `/${type}`,
        route: `/wp/v2/${type}`,
        query: { include: chunk.join(','), per_page: CHUNK, context: 'edit', status: 'any', _fields: FIELDS },
      }, { lang: this.lang });
    } catch (err) {
      if (this.switchedOff(err)) return undefined;
      throw err;
    }
    const parsed = RawItems.safeParse(body);
    if (!parsed.success) {
      this.unavailable ??= `/wp/v2/${type} answered in an unexpected shape`;
      return undefined;
    }
    return parsed.data;
  }

  /**
   * Every published event the site's core route lists, by id with its `modified_gmt`: the events
   * that have not ended, those hidden from the v1 listing included (TEC narrows that one only).
   * The first page says how many there are (X-WP-TotalPages); the rest are read `concurrency` at a
   * time. Undefined when the route is not usable (the reader is then switched off, as for the text).
   */
  async upcomingEvents(concurrency = 4): Promise<Map<number, string> | undefined> {
    const out = new Map<number, string>();
    const first = await this.upcomingPage(1, out);
    if (first === undefined || first.last) return this.unavailable ? undefined : out;
    // Without a page count (a proxy stripped it) one page after another until a short one. The
    // count is the site's word: the first short, repeated or refused page ends the reading anyway.
    const total = first.totalPages ?? Infinity;
    let next = 2;
    let ended = false;
    const reader = async (): Promise<void> => {
      while (!ended && next <= total) {
        const page = await this.upcomingPage(next++, out);
        if (page === undefined || page.last) ended = true;
      }
    };
    await Promise.all(Array.from({ length: first.totalPages === undefined ? 1 : concurrency }, reader));
    return this.unavailable ? undefined : out;
  }

  /**
   * One page of upcomingEvents into `out`: whether it was the last (short, past the end, or only
   * ids already read: a cache deaf to `page`) and the page count; undefined once switched off.
   */
  private async upcomingPage(page: number, out: Map<number, string>): Promise<{ last: boolean; totalPages?: number } | undefined> {
    if (this.unavailable) return undefined;
    let res: { body: unknown; totalPages?: number };
    try {
      res = await this.client.requestPage({
        path: '/tribe_events',
        route: '/wp/v2/tribe_events',
        query: { status: 'publish', per_page: CHUNK, page, orderby: 'id', order: 'asc', context: 'edit', _fields: 'id,modified_gmt' },
      }, { lang: this.lang });
    } catch (err) {
      // Past the last page (fewer events than when the count was read): WordPress answers 400.
      if (page > 1 && err instanceof ApiError && err.code === 'rest_post_invalid_page_number') return { last: true };
      if (this.switchedOff(err)) return undefined;
      throw err;
    }
    const parsed = Listed.safeParse(res.body);
    if (!parsed.success) {
      this.unavailable ??= '/wp/v2/tribe_events answered in an unexpected shape';
      return undefined;
    }
    const before = out.size;
    for (const item of parsed.data) out.set(item.id, item.modified_gmt ?? '');
    return { last: parsed.data.length < CHUNK || out.size === before, totalPages: res.totalPages };
  }

  /** Venue/organizer texts by id: those not read yet in this run in one go, the rest from before. */
  private async readLinked(kind: 'venues' | 'organizers', ids: number[]): Promise<Map<number, RawText>> {
    const memo = this.linked[kind];
    const fresh = [...new Set(ids)].filter((id) => !memo.has(id));
    if (fresh.length) {
      const batch = this.read(kind, fresh);
      for (const id of fresh) {
        const one = batch.then((m) => m.get(id));
        // Whoever awaits it sees the failure; one never awaited must not surface as unhandled.
        one.catch(() => undefined);
        memo.set(id, one);
      }
      // A failed read is not kept: the next page asks again (and fails the run the same way).
      batch.catch(() => {
        for (const id of fresh) memo.delete(id);
      });
    }
    const out = new Map<number, RawText>();
    for (const id of new Set(ids)) {
      const t = await memo.get(id);
      if (t) out.set(id, t);
    }
    return out;
  }

  /**
   * Copies of `records` whose event, venue and organizer titles and texts are the raw ones where
   * the route gave them; the rest keep the rendered values. The three reads go out together.
   */
  async apply(records: EventRecord[]): Promise<EventRecord[]> {
    if (this.unavailable || records.length === 0) return records;
    const venueIds = records.map((r) => eventVenue(r)?.id).filter((n): n is number => typeof n === 'number');
    const orgIds = records.flatMap((r) => (r.organizer ?? []).map((o) => (o as { id?: number }).id)).filter((n): n is number => typeof n === 'number');
    const [events, venues, organizers] = await Promise.all([this.read('events', records.map((r) => r.id)), this.readLinked('venues', venueIds), this.readLinked('organizers', orgIds)]);
    return records.map((r) => {
      const e = events.get(r.id);
      const copy: EventRecord = { ...r };
      if (e?.title !== undefined && e.title.trim() !== '') copy.title = e.title;
      if (e?.content !== undefined) copy.description = e.content;
      if (e?.excerpt !== undefined) copy.excerpt = e.excerpt;
      if (r.venue && typeof r.venue === 'object') {
        copy.venue = Array.isArray(r.venue) ? r.venue.map((v) => linkedRaw(v, 'venue', venues)) : linkedRaw(r.venue, 'venue', venues);
      }
      if (Array.isArray(r.organizer)) copy.organizer = r.organizer.map((o) => linkedRaw(o, 'organizer', organizers));
      return copy;
    });
  }
}

function rawOf(item: z.infer<typeof RawItem>): RawText {
  return { title: item.title?.raw, content: item.content?.raw, excerpt: item.excerpt?.raw };
}

function linkedRaw<T>(rec: T, nameField: 'venue' | 'organizer', raw: Map<number, RawText>): T {
  const id = (rec as { id?: number }).id;
  const t = id === undefined ? undefined : raw.get(id);
  if (!t) return rec;
  const copy = { ...rec } as Record<string, unknown>;
  if (t.title !== undefined && t.title.trim() !== '') copy[nameField] = t.title;
  if (t.content !== undefined) copy.description = t.content;
  return copy as T;
}
