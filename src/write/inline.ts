import type { EventAck } from '../api/index.ts';
import { eventVenue } from '../api/index.ts';
import type { Origin } from '../model/draft.ts';
import type { LinkedBody, LinkedKind } from './linked-writes.ts';
import { sameSiteName } from './terms.ts';

export type { LinkedKind };
export type LinkedRecord = { id: number; slug?: string; status?: string; modified_utc?: string };

/**
 * A venue or organizer the site does not hold yet, to be created inside the first event write
 * that links it: `POST /events` with the venue's (organizer's) own create fields in place of an
 * id creates it the way `POST /venues` would (same de-duplication by title, slug from the name)
 * and answers with its id, so a new venue costs no request of its own. The first event to `take`
 * it sends it inline; every other event waits for `result`. Whoever cannot send it inline (no
 * plain create of the event, a failed write) takes it and creates it on its own
 * (LinkedResolver.standalone), so it is written once whatever happens.
 */
export class InlineClaim {
  readonly kind: LinkedKind;
  /** Ledger key. */
  readonly key: string;
  /** The name as written (the ledger's spelling). */
  readonly name: string;
  readonly body: LinkedBody;
  readonly fp: string;
  readonly origin?: Origin;
  readonly explicitSlug?: string;
  /** The site id once written; undefined when it could not be written (reported as failed). */
  readonly result: Promise<number | undefined>;
  #taken = false;
  #id: number | undefined;
  #resolve!: (id: number | undefined) => void;

  constructor(init: { kind: LinkedKind; key: string; name: string; body: LinkedBody; fp: string; origin?: Origin; explicitSlug?: string }) {
    this.kind = init.kind;
    this.key = init.key;
    this.name = init.name;
    this.body = init.body;
    this.fp = init.fp;
    this.origin = init.origin;
    this.explicitSlug = init.explicitSlug;
    this.result = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** True for the one caller that now owns writing it (synchronous: no two owners). */
  take(): boolean {
    if (this.#taken) return false;
    this.#taken = true;
    return true;
  }

  get taken(): boolean {
    return this.#taken;
  }

  done(id: number | undefined): void {
    this.#id ??= id;
    this.#resolve(id);
  }

  /** The site id once written (what `result` resolves to), read without awaiting; undefined before. */
  get id(): number | undefined {
    return this.#id;
  }

  /** The wire form inside an event body: the create fields (the site takes no slug there). */
  inlineBody(): LinkedBody {
    return { ...this.body };
  }

  /** This record as the event's answer embeds it, or null when the site did not link it. */
  findIn(record: Pick<EventAck, 'venue' | 'organizer'>, otherIds: ReadonlySet<number>): LinkedRecord | null {
    if (this.kind === 'venues') return eventVenue(record);
    return record.organizer.find((o) => !otherIds.has(o.id) && sameSiteName(o.organizer ?? '', this.name)) ?? null;
  }
}

/** A link of an event: a site id, nothing (failed), or a record still to be created inline. */
export type Link = number | undefined | InlineClaim;
