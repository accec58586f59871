import type { EventDraft, Normalized } from '../../model/draft.ts';
import type { DraftKey, DraftKeys } from '../../write/draft-keys.ts';
import type { IcsNormalizeResult } from './normalize.ts';

/**
 * How the parser thread sends a result back (isolate.ts, parse-worker.ts). postMessage's structured
 * clone writes every property name of every object again: for the 17k drafts of the bench feed that
 * was half of the 7.4 MB message, and writing and reading it back cost the main thread as much as
 * planning the drafts did. Each draft travels as its values in one flat array, in the fixed field
 * order below, and is rebuilt with the same keys in the same order (undefined ones included); the
 * parts drafts share (venue, organizer and term lists) stay shared, as the clone keeps references.
 * Strings are not shared by the clone: the occurrences of one VEVENT follow one another and carry the
 * same content, so a draft whose content fields are those of the draft before it sends only its own
 * (identity, times, origin line, UID, occurrence) and takes the others from that draft, which keeps
 * them shared on arrival too. A draft with any other set of keys travels as it is.
 * With a `keyOf`, every draft is followed by its slug and shape (src/write/draft-keys.ts), which the
 * decoder, given DraftKeys, files there.
 */
export interface WireResult {
  items: unknown[];
  summary: IcsNormalizeResult['summary'];
  /** Plain data, cloned as it is (a few numbers and lines per group). */
  groups?: IcsNormalizeResult['groups'];
}

const FIELDS = [
  'identity', 'title', 'description', 'status', 'timezone', 'all_day', 'start_date', 'end_date', 'image', 'website',
  'categories', 'tags', 'venue', 'organizers', 'cancelled', 'sourceModified', 'origin',
] as const satisfies readonly (keyof EventDraft)[];
const ORIGIN = ['source', 'line', 'uid', 'occurrence'] as const;

const FAILED = 0;
const DRAFT = 1;
const AS_IS = 2;
const SAME_CONTENT = 3;
const WIDTH = FIELDS.length - 1 + ORIGIN.length;
/** What a SAME_CONTENT draft sends: identity, timezone, all_day, start_date, end_date, origin line, uid, occurrence. */
const OWN_WIDTH = 8;

/** Whether `d` differs from `prev` only in what each occurrence has of its own. */
function sameContent(d: EventDraft, prev: EventDraft): boolean {
  return d.title === prev.title && d.description === prev.description && d.status === prev.status && d.image === prev.image && d.website === prev.website
    && d.categories === prev.categories && d.tags === prev.tags && d.venue === prev.venue && d.organizers === prev.organizers
    && d.cancelled === prev.cancelled && d.sourceModified === prev.sourceModified && d.origin.source === prev.origin.source;
}

/** Whether `o` has exactly `keys`, in that order (how occurrenceDraft builds every draft). */
function hasKeys(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (!Object.hasOwn(o, k) || k !== keys[i++]) return false;
  return i === keys.length;
}

/**
 * Encodes items in file order, in as many parts as the parser thread sends (parse-worker.ts streams
 * them while it parses): a part may take its content from the last draft of the part before.
 */
export class WireEncoder {
  // The last draft sent whole or by SAME_CONTENT: the one the receiver rebuilt last.
  #prev: EventDraft | undefined;
  readonly #keyOf?: (d: EventDraft) => DraftKey;

  constructor(keyOf?: (d: EventDraft) => DraftKey) {
    this.#keyOf = keyOf;
  }

  encode(items: readonly Normalized<EventDraft>[], from = 0, to = items.length): unknown[] {
    const out: unknown[] = [];
    let prev = this.#prev;
    for (let i = from; i < to; i++) {
      const it = items[i]!;
      if (!it.ok) {
        out.push(FAILED, it.failure);
        continue;
      }
      const d = it.draft;
      if (!hasKeys(d, FIELDS) || !hasKeys(d.origin, ORIGIN)) out.push(AS_IS, d);
      else {
        const o = d.origin;
        if (prev !== undefined && sameContent(d, prev)) out.push(SAME_CONTENT, d.identity, d.timezone, d.all_day, d.start_date, d.end_date, o.line, o.uid, o.occurrence);
        else {
          out.push(DRAFT, d.identity, d.title, d.description, d.status, d.timezone, d.all_day, d.start_date, d.end_date, d.image, d.website);
          out.push(d.categories, d.tags, d.venue, d.organizers, d.cancelled, d.sourceModified, o.source, o.line, o.uid, o.occurrence);
        }
        prev = d;
      }
      if (this.#keyOf) {
        const key = this.#keyOf(d);
        out.push(key.slug, key.shape);
      }
    }
    this.#prev = prev;
    return out;
  }
}

export function toWire(r: IcsNormalizeResult): WireResult {
  return { items: new WireEncoder().encode(r.items), summary: r.summary };
}

type Draft = EventDraft;

function draftAt(a: unknown[], i: number): Draft {
  // The literal lists the keys in FIELDS order: the rebuilt draft is the one that was sent.
  return {
    identity: a[i] as Draft['identity'], title: a[i + 1] as Draft['title'], description: a[i + 2] as Draft['description'], status: a[i + 3] as Draft['status'],
    timezone: a[i + 4] as Draft['timezone'], all_day: a[i + 5] as Draft['all_day'], start_date: a[i + 6] as Draft['start_date'], end_date: a[i + 7] as Draft['end_date'],
    image: a[i + 8] as Draft['image'], website: a[i + 9] as Draft['website'], categories: a[i + 10] as Draft['categories'], tags: a[i + 11] as Draft['tags'],
    venue: a[i + 12] as Draft['venue'], organizers: a[i + 13] as Draft['organizers'], cancelled: a[i + 14] as Draft['cancelled'], sourceModified: a[i + 15] as Draft['sourceModified'],
    origin: { source: a[i + 16] as string, line: a[i + 17] as number | undefined, uid: a[i + 18] as string | undefined, occurrence: a[i + 19] as string | undefined },
  };
}

/** A SAME_CONTENT draft: its own fields from the wire, the others from `p` (same keys, same order). */
function sameAs(p: Draft, a: unknown[], i: number): Draft {
  return {
    identity: a[i] as Draft['identity'], title: p.title, description: p.description, status: p.status,
    timezone: a[i + 1] as Draft['timezone'], all_day: a[i + 2] as Draft['all_day'], start_date: a[i + 3] as Draft['start_date'], end_date: a[i + 4] as Draft['end_date'],
    image: p.image, website: p.website, categories: p.categories, tags: p.tags,
    venue: p.venue, organizers: p.organizers, cancelled: p.cancelled, sourceModified: p.sourceModified,
    origin: { source: p.origin.source, line: a[i + 5] as number | undefined, uid: a[i + 6] as string | undefined, occurrence: a[i + 7] as string | undefined },
  };
}

/** Decodes the parts a WireEncoder made, in the order it made them. */
export class WireDecoder {
  #prev: Draft | undefined;
  readonly #keys?: DraftKeys;

  /** `keys`: the parts were encoded with a `keyOf`; each draft's key is filed there. */
  constructor(keys?: DraftKeys) {
    this.#keys = keys;
  }

  /** Appends the items of one part to `items`. */
  decode(a: unknown[], items: Normalized<EventDraft>[]): void {
    let prev = this.#prev;
    const keys = this.#keys;
    for (let i = 0; i < a.length; ) {
      const tag = a[i++];
      let draft: Draft;
      if (tag === DRAFT) {
        draft = prev = draftAt(a, i);
        i += WIDTH;
      } else if (tag === SAME_CONTENT) {
        draft = prev = sameAs(prev!, a, i);
        i += OWN_WIDTH;
      } else if (tag === FAILED) {
        items.push({ ok: false, failure: a[i++] as Extract<Normalized<EventDraft>, { ok: false }>['failure'] });
        continue;
      } else draft = a[i++] as EventDraft;
      items.push({ ok: true, draft });
      if (keys) {
        keys.set(draft, { slug: a[i] as string, shape: a[i + 1] as string });
        i += 2;
      }
    }
    this.#prev = prev;
  }
}

export function fromWire(w: WireResult): IcsNormalizeResult {
  const items: Normalized<EventDraft>[] = [];
  new WireDecoder().decode(w.items, items);
  return { items, summary: w.summary };
}
