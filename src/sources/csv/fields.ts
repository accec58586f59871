import type { CsvKind } from './types.ts';

/**
 * The canonical column names per kind: calsync's own field names, plus a few helper fields that
 * only exist in files (separate `start_time`/`end_time` columns, currency columns folded into
 * `cost`, venue and organizer detail columns on an event row, and `private`, Google's export,
 * which sets the post status). Const tuples, so the row builders name fields by type: a typo in
 * a field name is a type error, not a column that silently never matches.
 */

export const EVENT_FIELDS = [
  'title', 'description', 'excerpt', 'start_date', 'start_time', 'end_date', 'end_time', 'timezone', 'all_day',
  'cost', 'currency_symbol', 'currency_position', 'currency_code', 'website', 'categories', 'tags', 'venue',
  'organizer', 'featured', 'sticky', 'hide_from_listings', 'show_map', 'show_map_link', 'image', 'status', 'slug',
  'private', 'venue_description', 'venue_address', 'venue_address2', 'venue_city', 'venue_country',
  'venue_province', 'venue_state', 'venue_stateprovince', 'venue_zip', 'venue_phone', 'venue_website',
  'organizer_email', 'organizer_phone', 'organizer_website',
] as const;

export const VENUE_FIELDS = [
  'venue', 'description', 'address', 'address2', 'city', 'country', 'province', 'state', 'stateprovince', 'zip',
  'phone', 'website', 'image', 'show_map', 'show_map_link', 'status', 'slug',
] as const;

export const ORGANIZER_FIELDS = ['organizer', 'description', 'email', 'phone', 'website', 'image', 'status', 'slug'] as const;

export type EventField = (typeof EVENT_FIELDS)[number];
export type VenueField = (typeof VENUE_FIELDS)[number];
export type OrganizerField = (typeof ORGANIZER_FIELDS)[number];

/** Field names per kind, as a type: `FieldOf<'venues'>` is `VenueField`. */
export interface FieldsByKind {
  events: EventField;
  venues: VenueField;
  organizers: OrganizerField;
}
export type FieldOf<K extends CsvKind> = FieldsByKind[K];

export const FIELDS: { readonly [K in CsvKind]: readonly FieldOf<K>[] } = {
  events: EVENT_FIELDS,
  venues: VENUE_FIELDS,
  organizers: ORGANIZER_FIELDS,
};

/** Fields a row cannot do without; a file mapping none of them is refused up front. */
export const REQUIRED: { readonly [K in CsvKind]: readonly FieldOf<K>[] } = {
  events: ['title', 'start_date'],
  venues: ['venue'],
  organizers: ['organizer'],
};
