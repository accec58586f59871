/**
 * What the sandbox stores. Records keep raw values; the response shapes (shapes.ts) derive the
 * rendered fields (HTML, permalinks, UTC details, cost display) on the way out. Every record
 * belongs to exactly one language: a translation is a separate record with its own id (WPML).
 */

export type PostKind = 'event' | 'venue' | 'organizer';
export type Taxonomy = 'tribe_events_cat' | 'post_tag';

export interface PostBase {
  id: number;
  lang: string;
  author: number;
  status: string;
  /** post_name; empty for drafts created without one; `<slug>__trashed` in trash */
  slug: string;
  title: string;
  description: string;
  excerpt: string;
  /** publication date, site-local and UTC (`0000-00-00 00:00:00` while a draft) */
  date: string;
  dateUtc: string;
  modified: string;
  modifiedUtc: string;
  /** attachment id of the featured image */
  image: number | null;
}

export interface EventRecord extends PostBase {
  kind: 'event';
  timezone: string;
  allDay: boolean;
  start: string;
  end: string;
  utcStart: string;
  utcEnd: string;
  /**
   * The site refused the occurrence row (end before start: "Duration must be a positive integer"),
   * so the event can be read by id but never appears in a list.
   */
  refused: boolean;
  cost: string;
  /** null = the meta key never existed, so the permalink is shown instead */
  website: string | null;
  showMap: boolean;
  showMapLink: boolean;
  hideFromListings: boolean;
  sticky: boolean;
  featured: boolean;
  categories: number[];
  tags: number[];
  venue: number | null;
  organizers: number[];
}

export const VENUE_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website'] as const;
export type VenueField = (typeof VENUE_FIELDS)[number];

export interface VenueRecord extends PostBase {
  kind: 'venue';
  fields: Record<VenueField, string>;
  showMap: boolean;
  showMapLink: boolean;
}

export const ORGANIZER_FIELDS = ['phone', 'website', 'email'] as const;
export type OrganizerField = (typeof ORGANIZER_FIELDS)[number];

export interface OrganizerRecord extends PostBase {
  kind: 'organizer';
  fields: Record<OrganizerField, string>;
}

export type PostRecord = EventRecord | VenueRecord | OrganizerRecord;

export interface TermRecord {
  id: number;
  lang: string;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parent: number;
}

export interface Attachment {
  id: number;
  url: string;
  extension: string;
}

/** Statuses WordPress has registered on a site with The Events Calendar. */
export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'auto-draft', 'inherit', 'tribe-ignored'];

/** Statuses WordPress keeps without a GMT date or unique slug. */
export const UNPUBLISHED = new Set(['draft', 'pending', 'auto-draft']);
