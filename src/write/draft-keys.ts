import type { EventDraft } from '../model/draft.ts';
import { slugFor } from '../model/identity.ts';
import { eventShape } from './body.ts';

/** An event draft's slug, and its body's shape (eventShape): what the writer needs to see it unchanged. */
export interface DraftKey {
  slug: string;
  shape: string;
}

/** The slug an event draft is written under: its own, or one derived from the source and its identity. */
export function draftSlug(sourceKey: string, d: EventDraft): string {
  return d.slug ?? slugFor(sourceKey, d.identity);
}

export function draftKey(d: EventDraft, sourceKey: string, status: string): DraftKey {
  const slug = draftSlug(sourceKey, d);
  return { slug, shape: eventShape(d, slug, { status }) };
}

/**
 * Keys of event drafts worked out where the drafts were made: the ICS parser thread hashes them on
 * the other core while it parses (src/sources/ics/parse-worker.ts), so an unchanged re-import's main
 * thread only compares strings (SiteWriter). They hold for a writer of the same source and status only.
 */
export class DraftKeys {
  readonly sourceKey: string;
  readonly status: string;
  readonly #keys = new WeakMap<EventDraft, DraftKey>();

  constructor(sourceKey: string, status: string) {
    this.sourceKey = sourceKey;
    this.status = status;
  }

  set(d: EventDraft, key: DraftKey): void {
    this.#keys.set(d, key);
  }

  get(d: EventDraft): DraftKey | undefined {
    return this.#keys.get(d);
  }
}
