import { z } from 'zod';
import { Id, linkedPostShape, NonEmpty, Slug, WallTime } from './common.ts';

/** Organizer record; empty fields are dropped by the site, so everything but `id` is optional. */
export const OrganizerRecord = z.looseObject({
  ...linkedPostShape,
  organizer: z.string().optional(),
  email: z.string().optional(),
});
export type OrganizerRecord = z.infer<typeof OrganizerRecord>;

export const OrganizerCreate = z.strictObject({
  author: Id.optional(),
  date: WallTime.optional(),
  date_utc: WallTime.optional(),
  organizer: NonEmpty,
  description: z.string().optional(),
  status: z.string().min(1).optional(),
  phone: z.string().optional(),
  website: z.string().optional(),
  email: z.string().optional(),
  image: z.string().optional(),
  /** Required by the by-slug update route; sent on create so the slug can be checked. */
  slug: Slug.optional(),
});
export type OrganizerCreate = z.infer<typeof OrganizerCreate>;

export const OrganizerUpdate = OrganizerCreate.partial();
export type OrganizerUpdate = z.infer<typeof OrganizerUpdate>;
