import type { EventDraft, OrganizerDraft, TermDraft, VenueDraft } from './draft.ts';
import { plainText, sanitizeHtml, webUrl } from './html.ts';

/**
 * Which draft field is HTML, which is plain text and which is a link, applied the same way to
 * drafts from every source (src/model/html.ts does the work). Sources call these on what they
 * built; a field whose content was nothing but markup comes out empty and is omitted.
 */

const VENUE_TEXT = ['address', 'city', 'country', 'province', 'state', 'stateprovince', 'zip', 'phone'] as const;

const html = (v: string | undefined): string | undefined => (v === undefined ? undefined : sanitizeHtml(v) || undefined);
const text = (v: string | undefined): string | undefined => (v === undefined ? undefined : plainText(v).trim() || undefined);

/** Sets `key` to `value`, or deletes it when the cleaned value is empty (drafts omit, never blank). */
function put<T extends object, K extends keyof T>(o: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete o[key];
  else o[key] = value;
}

/** A venue, or undefined when its name was nothing but markup. */
export function cleanVenue<V extends Partial<VenueDraft>>(v: V | undefined): V | undefined {
  if (!v) return undefined;
  const out = { ...v };
  const name = text(v.venue);
  if (!name) return undefined;
  out.venue = name;
  put(out, 'description', html(v.description));
  for (const k of VENUE_TEXT) if (k in v) put(out, k, text(v[k]));
  if ('website' in v) put(out, 'website', webUrl(v.website));
  return out;
}

/** An organizer, or undefined when its name was nothing but markup. */
export function cleanOrganizer<O extends Partial<OrganizerDraft>>(o: O | undefined): O | undefined {
  if (!o) return undefined;
  const out = { ...o };
  const name = text(o.organizer);
  if (!name) return undefined;
  out.organizer = name;
  put(out, 'description', html(o.description));
  for (const k of ['email', 'phone'] as const) if (k in o) put(out, k, text(o[k]));
  if ('website' in o) put(out, 'website', webUrl(o.website));
  return out;
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
