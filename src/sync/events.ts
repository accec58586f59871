import type { CalendarClient, EventRecord } from '../api/index.ts';
import { ApiError, SlugMismatchError, isNotFound } from '../api/index.ts';
import type { EventDraft, ItemFailure, Normalized } from '../model/draft.ts';
import { fingerprint } from '../model/fingerprint.ts';
import { slugFor } from '../model/identity.ts';
import type { Language } from '../model/languages.ts';
import { mapConcurrent } from '../util/pool.ts';
import { eventBody, type EventBody } from './body.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import { LinkedResolver } from './linked.ts';
import type { ItemKind, RunReport } from './report.ts';
import { TermResolver } from './terms.ts';
import { retireVanished, type RetireOptions } from './retire.ts';

export type OnEdit = 'overwrite' | 'preserve';

export interface SiteWriterOptions {
  client: CalendarClient;
  ledger: Ledger;
  report: RunReport;
  sourceKey: string;
  lang?: Language;
  dryRun?: boolean;
  onEdit?: OnEdit;
  /** Post status for new records unless the draft says otherwise. @defaultValue 'publish' */
  status?: string;
  createTerms?: boolean;
  /** Requests in flight against the site. @defaultValue 8 */
  concurrency?: number;
  signal?: AbortSignal;
  /** Update terms matched by slug when their name/description/parent changed (sync). */
  updateTerms?: boolean;
}

interface Planned {
  draft: EventDraft;
  slug: string;
  body: EventBody;
  fp: string;
  notes: string[];
}

function failureKind(f: ItemFailure): ItemKind {
  return f.kind === 'event' ? 'events' : f.kind === 'venue' ? 'venues' : 'organizers';
}

/** `YYYY-MM-DD HH:MM:SS` (UTC, as the site returns it) → ISO instant. */
function utcIso(siteUtc: string | undefined): string | undefined {
  return siteUtc ? `${siteUtc.replace(' ', 'T')}Z` : undefined;
}

/**
 * The write half of every import and sync: terms → venues/organizers → events, by slug, with
 * the ledger deciding what needs a request. Batches can be fed one after another (CSV chunks,
 * sync pages); `seen` and `cancelled` collect the slugs retirement needs at the end.
 */
export class SiteWriter {
  readonly terms: TermResolver;
  readonly linked: LinkedResolver;
  readonly seen = new Set<string>();
  readonly cancelled = new Set<string>();
  private readonly firstOrigin = new Map<string, string>();
  private readonly o: Required<Omit<SiteWriterOptions, 'lang' | 'signal'>> & Pick<SiteWriterOptions, 'lang' | 'signal'>;

  constructor(opts: SiteWriterOptions) {
    this.o = { dryRun: false, onEdit: 'overwrite', status: 'publish', createTerms: true, concurrency: 8, updateTerms: false, ...opts };
    this.terms = new TermResolver(opts.client, { lang: opts.lang, createTerms: this.o.createTerms, dryRun: this.o.dryRun, report: opts.report, updateTerms: this.o.updateTerms });
    this.linked = new LinkedResolver(opts.client, opts.ledger, { lang: opts.lang, dryRun: this.o.dryRun, status: this.o.status, report: opts.report });
  }

  slugOf(d: EventDraft): string {
    return d.slug ?? slugFor(this.o.sourceKey, d.identity);
  }

  async writeEvents(items: Normalized<EventDraft>[]): Promise<void> {
    const { report } = this.o;
    const drafts: EventDraft[] = [];
    for (const it of items) {
      if (!it.ok) report.add({ kind: failureKind(it.failure), outcome: 'failed', reason: it.failure.reason, origin: it.failure.origin });
      else drafts.push(it.draft);
    }
    const live: EventDraft[] = [];
    for (const d of drafts) {
      const slug = this.slugOf(d);
      const where = `${d.origin.source}${d.origin.line !== undefined ? `:${d.origin.line}` : d.origin.uid ? ` UID ${d.origin.uid}` : ''}`;
      const first = this.firstOrigin.get(slug);
      if (first !== undefined) {
        report.add({ kind: 'events', slug, outcome: 'skipped', reason: `duplicate of ${first} (same identity)`, origin: d.origin });
        continue;
      }
      this.firstOrigin.set(slug, where);
      if (d.cancelled) {
        this.cancelled.add(slug);
        report.add({ kind: 'events', slug, outcome: 'skipped', reason: 'cancelled in the source', origin: d.origin });
        continue;
      }
      this.seen.add(slug);
      live.push(d);
    }
    if (live.length === 0) return;

    // Terms first (sequential per distinct term, cached), then venues/organizers in parallel.
    const planned = await mapConcurrent(live, this.o.concurrency, async (d): Promise<Planned> => {
      const notes: string[] = [];
      const categories = await this.terms.resolveAll('categories', d.categories);
      const tags = await this.terms.resolveAll('tags', d.tags);
      let venue: number | undefined;
      if (d.venue) {
        venue = await this.linked.venue(d.venue);
        if (venue === undefined) notes.push(`written without its venue "${d.venue.venue}" (see the venue's failure)`);
      }
      const organizers: number[] = [];
      for (const o of d.organizers) {
        const id = await this.linked.organizer(o);
        if (id === undefined) notes.push(`written without its organizer "${o.organizer}" (see the organizer's failure)`);
        else organizers.push(id);
      }
      const body = eventBody(d, { categories, tags, venue, organizers }, { status: this.o.status });
      const slug = this.slugOf(d);
      return { draft: d, slug, body, fp: fingerprint({ ...body, slug }), notes };
    });

    const known = await this.o.ledger.getMany('events', planned.map((p) => p.slug));
    await mapConcurrent(planned, this.o.concurrency, (p) => this.writeOne(p, known.get(p.slug)));
  }

  private async writeOne(p: Planned, entry: LedgerEntry | undefined): Promise<void> {
    const { report, client, lang, ledger } = this.o;
    const base = { kind: 'events' as const, slug: p.slug, origin: p.draft.origin };
    const reason = p.notes.length ? p.notes.join('; ') : undefined;
    if (entry && entry.fp === p.fp) {
      report.add({ ...base, outcome: 'unchanged', siteId: entry.id });
      return;
    }
    try {
      if (this.o.dryRun) {
        const existing = await client.events.findBySlug(p.slug, { lang });
        report.add({ ...base, outcome: existing ? 'updated' : 'created', reason: existing ? 'would be updated (dry run)' : 'would be created (dry run)' });
        return;
      }
      let record: EventRecord;
      let created = false;
      if (entry) {
        if (this.o.onEdit === 'preserve') {
          const current = await client.events.findBySlug(p.slug, { lang });
          if (current && entry.modified && current.modified_utc && current.modified_utc > entry.modified) {
            report.add({ ...base, outcome: 'skipped', siteId: current.id, reason: `edited on the site at ${current.modified_utc} UTC, after calsync last wrote it (--on-edit preserve)` });
            return;
          }
        }
        try {
          record = await client.events.updateBySlug(p.slug, p.body, { lang });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          if (await this.isTrashed(entry.id)) {
            report.add({ ...base, outcome: 'skipped', siteId: entry.id, reason: 'deleted on the site (in trash); not re-created' });
            return;
          }
          // The site no longer has it at all (e.g. a site restored from backup): write it anew.
          ({ record, created } = await this.create(p));
        }
      } else {
        ({ record, created } = await this.create(p));
      }
      await ledger.set('events', p.slug, { fp: p.fp, id: record.id, modified: record.modified_utc, start: utcIso(record.utc_start_date), src: p.draft.origin.ref, at: new Date().toISOString() });
      report.add({ ...base, outcome: created ? 'created' : 'updated', siteId: record.id, reason });
    } catch (err) {
      report.add({ ...base, outcome: 'failed', reason: (err as Error).message });
    }
  }

  /** Retires what this run's source no longer lists (and its cancelled occurrences), see retire.ts. */
  retire(opts: Pick<RetireOptions, 'policy' | 'window' | 'maxShare' | 'force'>): Promise<void> {
    const o = this.o;
    return retireVanished({ client: o.client, ledger: o.ledger, report: o.report, lang: o.lang, seen: this.seen, cancelled: this.cancelled, dryRun: o.dryRun, concurrency: o.concurrency, ...opts });
  }

  private async create(p: Planned): Promise<{ record: EventRecord; created: boolean }> {
    const { client, lang } = this.o;
    try {
      return await client.events.upsertBySlug(p.slug, p.body, { lang });
    } catch (err) {
      if (!(err instanceof SlugMismatchError) || !err.actual.startsWith(`${p.slug}-`)) throw err;
      // Another worker created the same slug a moment before us: trash our duplicate, update theirs.
      const dup = err.record as { id: number };
      await client.events.delete(dup.id, { lang }).catch(() => undefined);
      return { record: await client.events.updateBySlug(p.slug, p.body, { lang }), created: false };
    }
  }

  private async isTrashed(id: number): Promise<boolean> {
    try {
      const rec = await this.o.client.events.get(id, { lang: this.o.lang });
      return rec.status === 'trash';
    } catch (err) {
      // Trashed events answer 403 event-no-longer-available (6.17.2) or event-not-accessible (6.17.1).
      return err instanceof ApiError && (err.status === 403 || err.status === 410);
    }
  }
}
