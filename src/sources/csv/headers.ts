import { FIELDS, type FieldOf } from './fields.ts';
import type { CsvKind } from './types.ts';

/**
 * Header → field mapping.
 *
 * Fields are calsync's own names (the site's write fields, src/model/draft.ts) plus the helper fields of fields.ts. Headers are
 * compared after lower-casing and dropping everything but letters and digits, so
 * "Event Start Date", "EVENT START DATE", "event_start_date" and "Event-Start-Date?" are one name.
 */

export const IGNORE = 'ignore';

export { FIELDS, REQUIRED } from './fields.ts';

/**
 * Known spellings, already normalized. Sources: calsync's field names; The Events Calendar's CSV
 * import columns (and the older/test variants in its own test files: "Event Timezone", "Hide",
 * "Sticky", "Event Currency Code"); Google Calendar's and Outlook's CSV; Yahoo's export; Event
 * Organiser's CSV plug-in (Title/Content/Venue/Category); a few generic words (date, time, location,
 * summary, url, price).
 */
const ALIASES: { readonly [K in CsvKind]: Partial<Record<FieldOf<K>, readonly string[]>> } = {
  events: {
    title: ['eventname', 'eventtitle', 'name', 'subject', 'summary', 'event'],
    description: ['eventdescription', 'content', 'body', 'details'],
    excerpt: ['eventexcerpt'],
    start_date: ['eventstartdate', 'start', 'date', 'startdatetime', 'begin', 'begins', 'dtstart'],
    start_time: ['eventstarttime', 'time'],
    end_date: ['eventenddate', 'end', 'enddatetime', 'ends', 'dtend'],
    end_time: ['eventendtime'],
    timezone: ['eventtimezone', 'tz', 'zone', 'eventtz'],
    all_day: ['alldayevent', 'isalldayevent', 'eventallday', 'allday'],
    cost: ['eventcost', 'price'],
    currency_symbol: ['eventcurrencysymbol', 'currency'],
    currency_position: ['eventcurrencyposition'],
    currency_code: ['eventcurrencycode'],
    website: ['eventwebsite', 'url', 'link', 'eventurl'],
    categories: ['category', 'eventcategory', 'eventcategories'],
    tags: ['tag', 'eventtags', 'eventtag'],
    venue: ['venuename', 'eventvenuename', 'eventvenue', 'location'],
    organizer: ['organizername', 'eventorganizername', 'eventorganizer', 'organizers', 'meetingorganizer'],
    featured: ['eventfeatured', 'isfeatured'],
    sticky: ['stickyinmonthview', 'eventsticky'],
    hide_from_listings: ['hidefromeventlistings', 'hide', 'eventhidefromlistings'],
    show_map: ['eventshowmap'],
    show_map_link: ['eventshowmaplink'],
    image: ['eventfeaturedimage', 'featuredimage', 'eventimage'],
    status: ['eventstatus', 'poststatus'],
    venue_description: ['venuedescription'],
    venue_address: ['venueaddress', 'address'],
    venue_address2: ['address2'],
    venue_city: ['city'],
    venue_country: ['country'],
    venue_stateprovince: ['stateprovince'],
    venue_province: ['province'],
    venue_state: ['state'],
    venue_zip: ['zip', 'postalcode', 'postcode', 'zipcode', 'venuepostalcode'],
    organizer_email: ['email'],
    organizer_phone: [],
    organizer_website: [],
  },
  venues: {
    venue: ['venuename', 'name', 'title'],
    description: ['venuedescription'],
    address: ['venueaddress', 'address1', 'street'],
    address2: ['venueaddress2'],
    city: ['venuecity'],
    country: ['venuecountry'],
    province: ['venueprovince'],
    state: ['venuestate'],
    stateprovince: ['venuestateprovince', 'region'],
    zip: ['venuezip', 'postalcode', 'postcode', 'zipcode'],
    phone: ['venuephone'],
    website: ['venuewebsite', 'url'],
    image: ['venuefeaturedimage', 'featuredimage', 'venueimage'],
    show_map: ['venueshowmap'],
    show_map_link: ['venueshowmaplink'],
    status: ['venuestatus'],
  },
  organizers: {
    organizer: ['organizername', 'name', 'title'],
    description: ['organizerdescription'],
    email: ['organizeremail', 'emailaddress'],
    phone: ['organizerphone'],
    website: ['organizerwebsite', 'url'],
    image: ['organizerfeaturedimage', 'featuredimage', 'organizerimage'],
    status: ['organizerstatus'],
  },
};

export function normalizeHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const LOOKUP: Record<CsvKind, Map<string, string>> = { events: new Map(), venues: new Map(), organizers: new Map() };
for (const kind of Object.keys(FIELDS) as CsvKind[]) {
  for (const field of FIELDS[kind]) LOOKUP[kind].set(normalizeHeader(field), field);
  for (const [field, aliases] of Object.entries(ALIASES[kind]) as [string, readonly string[]][]) {
    for (const alias of aliases) if (!LOOKUP[kind].has(alias)) LOOKUP[kind].set(alias, field);
  }
  // "Venue Address" on an event row is venue_address; these are its other spellings.
  if (kind === 'events') {
    for (const f of FIELDS.events) {
      if (f.startsWith('venue_') || f.startsWith('organizer_')) LOOKUP.events.set(normalizeHeader(f), f);
    }
  }
}

export function autoField(kind: CsvKind, header: string): string | undefined {
  const key = normalizeHeader(header);
  return key ? LOOKUP[kind].get(key) : undefined;
}

/** A mapping target as the user wrote it ("start_date", "Start Date", "ignore") → field name. */
export function targetField(kind: CsvKind, target: string): string | undefined {
  const key = normalizeHeader(target);
  if (key === '' || key === IGNORE || key === 'skip' || key === 'none') return IGNORE;
  for (const field of FIELDS[kind]) if (normalizeHeader(field) === key) return field;
  return undefined;
}

export interface ColumnPlan {
  /** Field per column index; null = not used. */
  fields: (string | null)[];
  /** Display name per column: the header, or `column N` when empty, duplicated or absent. */
  labels: string[];
  mapping: Record<string, string>;
  /** Labels of unused columns: the first MAX_LISTED_COLUMNS, then one `… and K more` entry. */
  unmapped: string[];
}

/**
 * Column lists go into warnings and refusal messages; the file decides how many columns there are
 * (a 1 M-column header once printed an 8.8 MB warning line), so lists are cut.
 */
export const MAX_LISTED_COLUMNS = 50;
const MAX_LABEL_CHARS = 80;

function shortLabel(l: string): string {
  return l.length > MAX_LABEL_CHARS ? `${l.slice(0, MAX_LABEL_CHARS)}…` : l;
}

/** The first `max` labels (each cut to 80 chars), then `… and K more`. */
export function capLabels(labels: string[], max = MAX_LISTED_COLUMNS): string[] {
  const shown = labels.slice(0, max).map(shortLabel);
  return labels.length > max ? [...shown, `… and ${labels.length - max} more`] : shown;
}

/** Labels for a message: `a, b, c, … and K more`. */
export function listColumns(labels: string[], max = MAX_LISTED_COLUMNS): string {
  return capLabels(labels, max).join(', ');
}

export type MappingProblem = { key: string; problem: 'unknown-field' | 'no-column'; target?: string };

/** Resolves a user mapping key (header text, normalized header, or 1-based index) to a column. */
export function resolveColumn(key: string, headers: string[] | null, width: number): number | undefined {
  if (headers) {
    const exact = headers.indexOf(key);
    if (exact >= 0) return exact;
  }
  if (/^\s*\d+\s*$/.test(key)) {
    const index = Number(key) - 1;
    return index >= 0 && index < width ? index : undefined;
  }
  if (headers) {
    const norm = normalizeHeader(key);
    if (norm) {
      const i = headers.findIndex((h) => normalizeHeader(h) === norm);
      if (i >= 0) return i;
    }
  }
  return undefined;
}

export function columnLabels(headers: string[] | null, width: number): string[] {
  const labels: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < width; i++) {
    const h = headers?.[i]?.trim() ?? '';
    labels.push(h && !seen.has(h) ? h : `column ${i + 1}`);
    if (h) seen.add(h);
  }
  return labels;
}

/**
 * Auto-mapping plus the user's mapping. The user's entries win; when two columns claim one field,
 * the first keeps it and the other is reported as unmapped (never silently merged). `keyColumn`
 * (the `--key` column) is used as the rows' identity, so it is not reported as unmapped either.
 */
export function planColumns(
  kind: CsvKind,
  headers: string[] | null,
  width: number,
  userMapping: Record<string, string> = {},
  keyColumn?: number,
): { plan: ColumnPlan; problems: MappingProblem[] } {
  const labels = columnLabels(headers, width);
  const fields: (string | null)[] = new Array(width).fill(null);
  const claimed = new Set<string>();
  const explicit = new Set<number>();
  const problems: MappingProblem[] = [];

  for (const [key, target] of Object.entries(userMapping)) {
    const field = targetField(kind, String(target));
    if (!field) {
      problems.push({ key, problem: 'unknown-field', target: String(target) });
      continue;
    }
    const col = resolveColumn(key, headers, width);
    if (col === undefined) {
      problems.push({ key, problem: 'no-column' });
      continue;
    }
    explicit.add(col);
    if (field === IGNORE || claimed.has(field)) continue;
    fields[col] = field;
    claimed.add(field);
  }
  if (headers) {
    for (let i = 0; i < width; i++) {
      if (explicit.has(i)) continue;
      const field = autoField(kind, headers[i] ?? '');
      if (field && !claimed.has(field)) {
        fields[i] = field;
        claimed.add(field);
      }
    }
  }
  const mapping: Record<string, string> = {};
  const unmapped: string[] = [];
  for (let i = 0; i < width; i++) {
    const f = fields[i];
    if (f) mapping[labels[i]!] = f;
    else if (i !== keyColumn && !(explicit.has(i) && userMappingIgnores(kind, userMapping, i, headers, width))) unmapped.push(labels[i]!);
  }
  return { plan: { fields, labels, mapping, unmapped: capLabels(unmapped) }, problems };
}

function userMappingIgnores(
  kind: CsvKind,
  userMapping: Record<string, string>,
  col: number,
  headers: string[] | null,
  width: number,
): boolean {
  for (const [key, target] of Object.entries(userMapping)) {
    if (targetField(kind, String(target)) === IGNORE && resolveColumn(key, headers, width) === col) return true;
  }
  return false;
}

/** How many cells of a row name a known field (auto or by the user's mapping); header detection. */
export function headerHits(kind: CsvKind, row: string[], userMapping: Record<string, string> = {}): number {
  const userKeys = new Set(
    Object.keys(userMapping)
      .filter((k) => !/^\s*\d+\s*$/.test(k))
      .map(normalizeHeader),
  );
  let hits = 0;
  for (const cell of row) {
    const norm = normalizeHeader(cell);
    if (!norm) continue;
    if (userKeys.has(norm) || autoField(kind, cell)) hits++;
  }
  return hits;
}
