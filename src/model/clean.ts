import type { EventDraft, OrganizerDraft, TermDraft, VenueDraft } from './draft.ts';
import { ORGANIZER_TEXT_FIELDS, VENUE_TEXT_FIELDS, type TextKind } from './text-fields.ts';
import { plainText, sanitizeHtml, webUrl } from './html.ts';

/**
 * Which draft field is HTML, which is plain text and which is a link, applied the same way to
 * drafts from every source (src/model/html.ts does the work). Sources call these on what they
 * built; a field whose content was nothing but markup comes out empty and is omitted.
 */

const html = (v: string | undefined): string | undefined => (v === undefined ? undefined : sanitizeHtml(v) || undefined);
const text = (v: string | undefined): string | undefined => (v === undefined ? undefined : plainText(v).trim() || undefined);

/** Sets `key` to `value`, or deletes it when the cleaned value is empty (drafts omit, never blank). */
function put<T extends object, K extends keyof T>(o: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete o[key];
  else o[key] = value;
}

const CLEANERS: Record<TextKind, (v: string | undefined) => string | undefined> = { html, text, url: webUrl };

/** A linked record's table: its name field (plain text, required) and how each other field is cleaned. */
interface LinkedTable<D> {
  name: keyof D & string;
  fields: Partial<Record<keyof D & string, TextKind>>;
}

const VENUE: LinkedTable<VenueDraft> = {
  name: 'venue',
  fields: VENUE_TEXT_FIELDS,
};

const ORGANIZER: LinkedTable<OrganizerDraft> = {
  name: 'organizer',
  fields: ORGANIZER_TEXT_FIELDS,
};

const ENTRIES = new WeakMap<object, [string, (v: string | undefined) => string | undefined][]>();

/** A table's fields with their cleaners, listed once per table rather than once per record. */
function cleanersOf<D>(table: LinkedTable<D>): [string, (v: string | undefined) => string | undefined][] {
  let entries = ENTRIES.get(table);
  if (!entries) {
    entries = (Object.entries(table.fields) as [string, TextKind][]).map(([k, c]) => [k, CLEANERS[c]]);
    ENTRIES.set(table, entries);
  }
  return entries;
}

/** A venue or organizer by its table, or undefined when its name was nothing but markup. */
function cleanLinked<T extends object, D>(v: T | undefined, table: LinkedTable<D>): T | undefined {
  if (!v) return undefined;
  const fields = v as Record<string, string | undefined>;
  const name = text(fields[table.name]);
  if (!name) return undefined;
  const out: Record<string, unknown> = { ...v, [table.name]: name };
  for (const [k, clean] of cleanersOf(table)) if (k in v) put(out, k, clean(fields[k]));
  return out as T;
}

export function cleanVenue<V extends Partial<VenueDraft>>(v: V | undefined): V | undefined {
  return cleanLinked(v, VENUE);
}

export function cleanOrganizer<O extends Partial<OrganizerDraft>>(o: O | undefined): O | undefined {
  return cleanLinked(o, ORGANIZER);
}

export function cleanTerm(t: TermDraft): TermDraft | undefined {
  const name = text(t.name);
  if (!name) return undefined;
  const out: TermDraft = { ...t, name };
  if (t.description !== undefined) out.description = sanitizeHtml(t.description);
  if (typeof t.parent === 'string') put(out, 'parent', text(t.parent));
  else if (t.parent) put(out, 'parent', cleanTerm(t.parent));
  return out;
}

export function cleanTerms(terms: readonly TermDraft[]): TermDraft[] {
  return terms.map(cleanTerm).filter((t): t is TermDraft => t !== undefined);
}

type EventFields = Partial<Pick<EventDraft, 'title' | 'description' | 'excerpt' | 'cost' | 'website' | 'venue' | 'organizers' | 'categories' | 'tags'>>;

/**
 * The content fields of an event (a draft, or any object carrying some of them). A title that
 * was nothing but markup becomes '' so the draft schema refuses it with "title" named.
 */
export function cleanEvent<E extends EventFields>(e: E): E {
  const out = { ...e };
  if ('title' in e) out.title = text(e.title) ?? '';
  if ('description' in e) put(out, 'description', html(e.description));
  if ('excerpt' in e) put(out, 'excerpt', html(e.excerpt));
  if ('cost' in e) put(out, 'cost', text(e.cost));
  if ('website' in e) put(out, 'website', webUrl(e.website));
  if ('venue' in e) put(out, 'venue', cleanVenue(e.venue));
  if (e.organizers) out.organizers = e.organizers.map((o) => cleanOrganizer(o)).filter((o): o is OrganizerDraft => o !== undefined);
  if (e.categories) out.categories = cleanTerms(e.categories);
  if (e.tags) out.tags = cleanTerms(e.tags);
  return out;
}
