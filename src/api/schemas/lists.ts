import { z } from 'zod';
import { Count, Id, QueryDate } from './common.ts';

/**
 * What every list envelope carries besides its items (`events`, `venues`, `organizers`,
 * `categories` or `tags`, read by key in paging.ts). `next_rest_url`/`previous_rest_url` are left
 * out (not null) when there is no such page, and are never followed: they drop filters and can
 * carry `status=any`, which the site itself refuses for such a request: never follow those URLs.
 */
export const ListEnvelope = z.looseObject({
  rest_url: z.string().optional(),
  next_rest_url: z.string().optional(),
  previous_rest_url: z.string().optional(),
  total: Count.optional(),
  total_pages: Count.optional(),
});
export type ListEnvelope = z.infer<typeof ListEnvelope>;

export type ListKey = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

/** The site caps every list at 50 per page; larger values are clamped silently. */
export const MAX_PER_PAGE = 50;

const PageParams = {
  page: z.number().int().positive().optional(),
  per_page: z.number().int().positive().optional(),
};

/** A term filter entry: an id or a slug (names that are not slugs fail on the site). */
const TermRef = z.union([Id, z.string().min(1)]);

/** GET /events parameters (the arguments src/sandbox/events.ts declares for the list route). Arrays are sent as CSV. */
export const EventListQuery = z.strictObject({
  ...PageParams,
  /** Starts on/after (whole day unless `strict_dates`). Always send a window: the defaults hide past events. */
  start_date: QueryDate.optional(),
  /** Ends on/before. */
  end_date: QueryDate.optional(),
  starts_before: QueryDate.optional(),
  starts_after: QueryDate.optional(),
  ends_before: QueryDate.optional(),
  ends_after: QueryDate.optional(),
  strict_dates: z.boolean().optional(),
  search: z.string().optional(),
  categories: z.array(TermRef).optional(),
  tags: z.array(TermRef).optional(),
  venue: z.array(Id).optional(),
  organizer: z.array(Id).optional(),
  featured: z.boolean().optional(),
  /** One status or several; `any` is refused by the site. */
  status: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  geoloc: z.boolean().optional(),
  geoloc_lat: z.number().optional(),
  geoloc_lng: z.number().optional(),
  include: z.array(Id).optional(),
  post_parent: Id.optional(),
  ticketed: z.boolean().optional(),
});
export type EventListQuery = z.infer<typeof EventListQuery>;

/** GET /venues and GET /organizers parameters (as src/sandbox/linked.ts reads them). */
export const VenueListQuery = z.strictObject({
  ...PageParams,
  search: z.string().optional(),
  event: Id.optional(),
  has_events: z.boolean().optional(),
  only_with_upcoming: z.boolean().optional(),
  status: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
});
export type VenueListQuery = z.infer<typeof VenueListQuery>;
export const OrganizerListQuery = VenueListQuery;
export type OrganizerListQuery = VenueListQuery;

/** GET /categories and GET /tags parameters (as src/sandbox/terms.ts reads them). `hide_empty` defaults to true on the site. */
export const TermListQuery = z.strictObject({
  ...PageParams,
  search: z.string().optional(),
  exclude: z.array(Id).optional(),
  include: z.array(Id).optional(),
  /** Anything but `asc` sorts descending on the live sites. */
  order: z.enum(['asc', 'desc']).optional(),
  orderby: z.string().optional(),
  hide_empty: z.boolean().optional(),
  /** Categories only; `0` is a 400 on the site. */
  parent: Id.optional(),
  post: Id.optional(),
  event: Id.optional(),
  /** One slug; `a,b` returns nothing on the site. */
  slug: z.string().optional(),
});
export type TermListQuery = z.infer<typeof TermListQuery>;
