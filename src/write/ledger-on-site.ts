import type { CalendarClient } from '../api/index.ts';
import { goneAs } from '../api/errors/gone.ts';
import type { Language } from '../model/languages.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';

/** The ledger kinds a source writes records of (terms are resolved from the site's listing every run). */
export type RecordKind = 'events' | 'venues' | 'organizers';
export const RECORD_KINDS: RecordKind[] = ['events', 'venues', 'organizers'];

/** Entries looked up: a site that has none of them lost the ledger's records. */
export const LEDGER_SAMPLE = 3;

/** What the site holds of a ledger: `empty` when the ledger has no entry to look up. */
export type LedgerOnSite = { state: 'held' | 'empty' } | { state: 'forgotten'; ids: number[] };

/**
 * Whether the site still holds the records a ledger says calsync wrote there. A ledger outlives the
 * site it describes when the site is reset or restored from an older backup while Redis is kept:
 * trusted, it reports every record unchanged and writes nothing to a site that has none of them.
 *
 * Three entries are drawn at random and their records read by id, one after the other, until one is
 * there: one request on every run that has a ledger, three when the site lost its records. The site
 * lost them when none of the three is there: a record deleted for good one by one is someone's
 * choice, as a trashed one is (both are left as they are). A record the site cannot say anything
 * about (not a "not found" answer) counts as there: the run then goes on as it did before this check.
 */
export async function ledgerOnSite(ledger: Ledger, kind: RecordKind, client: CalendarClient, lang: Language): Promise<LedgerOnSite> {
  const sample = await ledger.sample(kind, LEDGER_SAMPLE);
  if (sample.length === 0) return { state: 'empty' };
  for (const [slug, entry] of sample) if (await stillThere(client, kind, lang, slug, entry)) return { state: 'held' };
  return { state: 'forgotten', ids: sample.map(([, e]) => e.id) };
}

/**
 * The record is at its id under the slug the ledger has (trashed included). After a reset the site
 * hands the same ids out again, so an id holding another record is one the site lost.
 */
async function stillThere(client: CalendarClient, kind: RecordKind, lang: Language, slug: string, entry: LedgerEntry): Promise<boolean> {
  try {
    const record = await client[kind].get(entry.id, { lang });
    return sameSlug(record.slug, entry.slug ?? slug);
  } catch (err) {
    return goneAs(err) !== 'deleted';
  }
}

/**
 * Slugs compare as the site stores them: percent-encoded, case-folded (a synced `café` is
 * `caf%c3%a9`), and without the `__trashed` WordPress gives a trashed post's slug (a real TEC 6.17.1
 * site answers the read of a trashed event with the record; 6.17.2 refuses it).
 */
function sameSlug(a: string | undefined, b: string): boolean {
  if (a === undefined) return true;
  const fold = (s: string) => {
    let text = s;
    try {
      text = decodeURIComponent(s);
    } catch {
      // not percent-encoded: compared as it is
    }
    return text.toLowerCase().replace(/__trashed$/, '');
  };
  return fold(a) === fold(b);
}
