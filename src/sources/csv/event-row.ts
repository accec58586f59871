import type { OrganizerDraft, TermDraft, VenueDraft } from '../../model/draft.ts';
import { cleanEvent, cleanOrganizer, cleanTerms, cleanVenue } from '../../model/clean.ts';
import { eventDates } from './event-dates.ts';
import type { EventField } from './fields.ts';
import { compact, joinAddress, normalizeName, splitTerms, uniqueNames, type Row } from './row.ts';
import { sharedPart } from './row-parts.ts';
import { parseZone } from './zones.ts';

/**
 * An event row → the fields of an event draft (the schema checks them after), or undefined once
 * the row has a problem. Choices worth knowing (documented for the lead and users):
 * - Dates: see event-dates.ts.
 * - Categories/tags: split on `;` when the cell has one, else on `,`; in a `;`-delimited file on `,`.
 * - Venue and organizers are sub-drafts built from the row's venue_* and organizer_* columns.
 *   Several organizers in one cell are separated by `;` only (names like "Smith, John" keep their
 *   comma); organizer e-mail/phone/website columns apply when the cell names exactly one.
 * - Cost: text kept; a currency symbol column is put before it (or after, with position
 *   `suffix`/`after`), a currency code column is appended ("76 USD").
 * - Status: see status.ts; `private` = yes → private.
 */

type EventRow = Row<EventField>;

const PREFIX = ['prefix', 'before'];
const SUFFIX = ['suffix', 'after', 'postfix'];

function eventCost(row: EventRow): string | undefined {
  const cost = row.get('cost');
  if (!cost) return undefined;
  let out = cost;
  const symbol = row.get('currency_symbol');
  if (symbol && !cost.includes(symbol)) {
    const position = row.get('currency_position').toLowerCase();
    if (position && !PREFIX.includes(position) && !SUFFIX.includes(position)) {
      row.fail('currency_position', `'${row.get('currency_position')}' is not prefix or suffix`);
    }
    out = SUFFIX.includes(position) ? `${cost}${symbol}` : `${symbol}${cost}`;
  }
  const code = row.get('currency_code');
  if (code && !out.toUpperCase().includes(code.toUpperCase())) out = `${out} ${code}`;
  return out;
}

const VENUE_DETAILS = [
  'venue_description', 'venue_address', 'venue_address2', 'venue_city', 'venue_country', 'venue_province',
  'venue_state', 'venue_stateprovince', 'venue_zip', 'venue_phone', 'venue_website',
] as const satisfies readonly EventField[];
const ORGANIZER_DETAILS = ['organizer_email', 'organizer_phone', 'organizer_website'] as const satisfies readonly EventField[];

function eventVenue(row: EventRow): VenueDraft | undefined {
  const name = row.get('venue');
  if (!name) {
    const given = VENUE_DETAILS.find((f) => row.get(f));
    return given ? row.fail(given, 'is given without a venue name') : undefined;
  }
  return compact({
    identity: normalizeName(name),
    venue: name,
    description: row.text('venue_description'),
    address: joinAddress(row.text('venue_address'), row.text('venue_address2')),
    city: row.text('venue_city'),
    country: row.text('venue_country'),
    province: row.text('venue_province'),
    state: row.text('venue_state'),
    stateprovince: row.text('venue_stateprovince'),
    zip: row.text('venue_zip'),
    phone: row.text('venue_phone'),
    website: row.url('venue_website'),
  }) as VenueDraft;
}

function eventOrganizers(row: EventRow): OrganizerDraft[] {
  const names = uniqueNames(row.get('organizer').split(';'));
  const given = ORGANIZER_DETAILS.filter((f) => row.get(f));
  if (!names.length) {
    if (given.length) row.fail(given[0]!, 'is given without an organizer name');
    return [];
  }
  if (names.length > 1) {
    if (given.length) row.fail(given[0]!, `one value for ${names.length} organizers`);
    return names.map((organizer) => ({ identity: normalizeName(organizer), organizer }));
  }
  return [
    compact({
      identity: normalizeName(names[0]!),
      organizer: names[0]!,
      email: row.email('organizer_email'),
      phone: row.text('organizer_phone'),
      website: row.url('organizer_website'),
    }) as OrganizerDraft,
  ];
}

function terms(row: EventRow, field: 'categories' | 'tags'): TermDraft[] {
  return cleanTerms(splitTerms(row.get(field), row.ctx.delimiter).map((name) => ({ name })));
}

const VENUE_COLUMNS = ['venue', ...VENUE_DETAILS] as const satisfies readonly EventField[];
const ORGANIZER_COLUMNS = ['organizer', ...ORGANIZER_DETAILS] as const satisfies readonly EventField[];
const CATEGORY_COLUMNS = ['categories'] as const satisfies readonly EventField[];
const TAG_COLUMNS = ['tags'] as const satisfies readonly EventField[];

/**
 * The parts rows repeat, cleaned (src/model/clean.ts) and built once per distinct cells
 * (row-parts.ts): a venue whose name was nothing but markup is no venue, organizers likewise.
 */
const categories = (row: EventRow): TermDraft[] => terms(row, 'categories');
const tags = (row: EventRow): TermDraft[] => terms(row, 'tags');
const cleanedVenue = (row: EventRow): VenueDraft | undefined => cleanVenue(eventVenue(row));
const cleanedOrganizers = (row: EventRow): OrganizerDraft[] =>
  eventOrganizers(row).map((o) => cleanOrganizer(o)).filter((o): o is OrganizerDraft => o !== undefined);

const PARTS = {
  categories: (row: EventRow) => sharedPart(row, 'categories', CATEGORY_COLUMNS, categories),
  tags: (row: EventRow) => sharedPart(row, 'tags', TAG_COLUMNS, tags),
  venue: (row: EventRow) => sharedPart(row, 'venue', VENUE_COLUMNS, cleanedVenue),
  organizers: (row: EventRow) => sharedPart(row, 'organizers', ORGANIZER_COLUMNS, cleanedOrganizers),
};

export function eventFields(row: EventRow, key: string | undefined, line: number): Record<string, unknown> | undefined {
  const { ctx } = row;
  const title = row.text('title');
  if (!title) row.fail('title', 'is empty (a title is required)');
  const zone = parseZone(row.get('timezone'));
  if (!zone.ok) row.fail('timezone', zone.reason);
  const timezone = (zone.ok && zone.value) || ctx.defaultTimezone;
  const dates = eventDates(row, timezone);
  if (zone.ok && !zone.value && dates && !dates.all_day) ctx.floatingRows++;
  const { status: rowStatus, cancelled } = row.postStatus('status');
  const isPrivate = row.bool('private');
  // Markup and entities are cleaned once, for the whole draft (src/model/clean.ts; the shared parts
  // come cleaned); the identity keeps the title as written so slugs stay what they were. A row
  // without a zone is identified by its wall time alone, whatever zone it is read in (the site's,
  // or --default-tz), so correcting the zone moves the events instead of duplicating them; its
  // marker stays `UTC`, the default these rows had before, so their slugs do not change.
  // Problems are found in the order the fields are listed (a row's reason lists them so).
  const draft: Record<string, unknown> = cleanEvent(compact({
    identity: key !== undefined ? `key:${key}` : dates && title ? `${title}|${dates.start_date}|${(zone.ok && zone.value) || 'UTC'}` : '',
    title,
    description: row.text('description'),
    excerpt: row.text('excerpt'),
    status: isPrivate ? 'private' : (rowStatus ?? ctx.status),
    timezone,
    all_day: dates?.all_day,
    start_date: dates?.start_date,
    end_date: dates?.end_date,
    image: row.url('image', true),
    cost: eventCost(row),
    website: row.url('website'),
    show_map: row.bool('show_map'),
    show_map_link: row.bool('show_map_link'),
    hide_from_listings: row.bool('hide_from_listings'),
    sticky: row.bool('sticky'),
    featured: row.bool('featured'),
    cancelled: cancelled ?? false,
    slug: row.text('slug'),
    origin: { source: ctx.sourceName, line },
  }));
  draft.categories = PARTS.categories(row);
  draft.tags = PARTS.tags(row);
  const venue = PARTS.venue(row);
  if (venue) draft.venue = venue;
  draft.organizers = PARTS.organizers(row);
  if (title && !draft.title) row.fail('title', 'has no text once markup is removed (a title is required)');
  return row.errors.length ? undefined : draft;
}
