import type { CalendarClient } from '../api/index.ts';
import { SlugMismatchError, isNotFound } from '../api/index.ts';
import type { Origin, OrganizerDraft, VenueDraft } from '../model/draft.ts';
import { fingerprint } from '../model/fingerprint.ts';
import { shortHash, slugify } from '../model/identity.ts';
import type { Language } from '../model/languages.ts';
import { organizerBody, venueBody } from './body.ts';
import type { Ledger } from './ledger.ts';
import type { RunReport } from './report.ts';

export interface LinkedResolverOptions {
  lang?: Language;
  dryRun: boolean;
  status?: string;
  report: RunReport;
}

type LinkedKind = 'venues' | 'organizers';

/**
 * A venue/organizer slug is readable and derived from its identity (normalized location text,
 * e-mail, CSV key) rather than the source, so several feeds naming the same place share one venue.
 */
export function linkedSlug(kind: LinkedKind, name: string, identity: string): string {
  const readable = slugify(name, 60) || (kind === 'venues' ? 'venue' : 'organizer');
  return `${readable}-${shortHash(`${kind}\u0000${identity}`, 8)}`;
}

/**
 * Upserts each distinct venue and organizer once per run through its by-slug route, then hands
 * out its site id for linking (never inline creation inside an event: a failed inline
 * organizer leaves orphans, CONTRACT). Unchanged ones (same fingerprint in the ledger) cost no request.
 */
export class LinkedResolver {
  private readonly client: CalendarClient;
  private readonly ledger: Ledger;
  private readonly opts: LinkedResolverOptions;
  private readonly pending = new Map<string, Promise<number | undefined>>();
  private dryRunIds = -1;

  constructor(client: CalendarClient, ledger: Ledger, opts: LinkedResolverOptions) {
    this.client = client;
    this.ledger = ledger;
    this.opts = opts;
  }

  venueSlug(d: VenueDraft): string {
    return d.slug ?? linkedSlug('venues', d.venue, d.identity);
  }

  organizerSlug(d: OrganizerDraft): string {
    return d.slug ?? linkedSlug('organizers', d.organizer, d.identity);
  }

  /** `origin` is given when the venue is an item of its own (a row of a venues CSV). */
  venue(d: VenueDraft, origin?: Origin): Promise<number | undefined> {
    const slug = this.venueSlug(d);
    return this.once('venues', slug, () => this.upsert('venues', slug, d.venue, venueBody(d, { status: this.opts.status }), origin));
  }

  organizer(d: OrganizerDraft, origin?: Origin): Promise<number | undefined> {
    const slug = this.organizerSlug(d);
    return this.once('organizers', slug, () => this.upsert('organizers', slug, d.organizer, organizerBody(d, { status: this.opts.status }), origin));
  }

  private once(kind: LinkedKind, slug: string, fn: () => Promise<number | undefined>) {
    const key = `${kind}\u0000${slug}`;
    let p = this.pending.get(key);
    if (!p) {
      p = fn();
      this.pending.set(key, p);
    }
    return p;
  }

  private async upsert(kind: LinkedKind, slug: string, name: string, body: object, origin?: Origin): Promise<number | undefined> {
    const { lang } = this.opts;
    const report = { add: (item: Parameters<RunReport['add']>[0]) => this.opts.report.add(origin ? { ...item, origin } : item) };
    const fp = fingerprint(body);
    const known = (await this.ledger.getMany(kind, [slug])).get(slug);
    if (known && known.fp === fp) {
      report.add({ kind, slug, outcome: 'unchanged', siteId: known.id });
      return known.id;
    }
    const res = kind === 'venues' ? this.client.venues : this.client.organizers;
    try {
      if (this.opts.dryRun) {
        const existing = await res.findBySlug(slug, { lang });
        report.add({ kind, slug, outcome: existing ? 'updated' : 'created', reason: existing ? 'would be updated (dry run)' : 'would be created (dry run)' });
        return existing?.id ?? this.dryRunIds--;
      }
      let id: number;
      let modified: string | undefined;
      try {
        const { record, created } = await res.upsertBySlug(slug, { ...body, slug } as never, { lang });
        id = record.id;
        modified = record.modified_utc;
        report.add({ kind, slug, outcome: created ? 'created' : 'updated', siteId: id });
      } catch (err) {
        if (!(err instanceof SlugMismatchError)) throw err;
        const rec = err.record as { id: number; slug: string; modified_utc?: string };
        if (err.actual.startsWith(`${slug}-`)) {
          // Two workers created the same record at once and the site suffixed ours: drop the
          // duplicate and update the original.
          await res.delete(rec.id, { lang }).catch(() => undefined);
          const updated = await res.updateBySlug(slug, { ...body, slug } as never, { lang });
          id = updated.id;
          modified = updated.modified_utc;
          report.add({ kind, slug, outcome: 'updated', siteId: id, reason: 'recovered from a concurrent create' });
        } else {
          // The site de-duplicated it onto an existing record with the same details.
          id = rec.id;
          modified = rec.modified_utc;
          report.add({ kind, slug, outcome: 'unchanged', siteId: id, reason: `matched the existing ${kind === 'venues' ? 'venue' : 'organizer'} "${err.actual}" (site de-duplication)` });
        }
      }
      await this.ledger.set(kind, slug, { fp, id, modified, at: new Date().toISOString() });
      return id;
    } catch (err) {
      report.add({ kind, slug, outcome: 'failed', reason: `${kind === 'venues' ? 'venue' : 'organizer'} "${name}" could not be written: ${(err as Error).message}` });
      return undefined;
    }
  }
}

export { isNotFound };
