import { z } from 'zod';
import { Id, linkedPostShape, MaybeBool, NonEmpty, Slug, WallTime } from './common.ts';

/**
 * Venue record. The site passes the object through `array_filter` before adding the map flags and
 * global ids, so every empty field is left out: everything but `id` is optional (src/sandbox/shapes.ts renders it so).
 */
export const VenueRecord = z.looseObject({
  ...linkedPostShape,
  venue: z.string().optional(),
  address: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  province: z.string().optional(),
  state: z.string().optional(),
  stateprovince: z.string().optional(),
  zip: z.string().optional(),
  geo_lat: z.union([z.number(), z.string()]).optional(),
  geo_lng: z.union([z.number(), z.string()]).optional(),
  show_map: MaybeBool.optional(),
  show_map_link: MaybeBool.optional(),
});
export type VenueRecord = z.infer<typeof VenueRecord>;

/** The site wants the map flags as the strings "true"/"false"; a JSON boolean is a 400. */
const MapFlag = z.enum(['true', 'false']);

const venueFields = {
  author: Id.optional(),
  date: WallTime.optional(),
  date_utc: WallTime.optional(),
  venue: NonEmpty,
  description: z.string().optional(),
  status: z.string().min(1).optional(),
  show_map: MapFlag.optional(),
  show_map_link: MapFlag.optional(),
  address: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  province: z.string().optional(),
  state: z.string().optional(),
  zip: z.string().optional(),
  phone: z.string().optional(),
  stateprovince: z.string().optional(),
  website: z.string().optional(),
  image: z.string().optional(),
  /**
   * Not among the documented create fields (the site names a venue from its title, src/sandbox/linked.ts), but required on the by-slug update route, and
   * sent on create so a site that honours it keeps calsync's slug (the returned slug is checked).
   */
  slug: Slug.optional(),
};

export const VenueCreate = z.strictObject(venueFields);
export type VenueCreate = z.infer<typeof VenueCreate>;

export const VenueUpdate = VenueCreate.partial();
export type VenueUpdate = z.infer<typeof VenueUpdate>;
