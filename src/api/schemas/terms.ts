import { z } from 'zod';
import { Id, NonEmpty, Slug } from './common.ts';

/**
 * A category or tag. Two shapes reach the client: the WP_Term array embedded in events
 * (`term_group`, `term_taxonomy_id`, `filter`) and the terms-controller output of `/categories`
 * and `/tags` (`link` renamed `url`, `meta`, maybe `_links`). One lenient schema covers both.
 */
export const TermRecord = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  description: z.string().optional(),
  taxonomy: z.string().optional(),
  parent: z.number().int().optional(),
  count: z.number().int().optional(),
  url: z.string().optional(),
  link: z.string().optional(),
  term_group: z.number().optional(),
  term_taxonomy_id: z.number().optional(),
  filter: z.string().optional(),
  urls: z.looseObject({ self: z.string().optional(), collection: z.string().optional(), up: z.string().optional() }).optional(),
});
export type TermRecord = z.infer<typeof TermRecord>;

export const CategoryRecord = TermRecord;
export type CategoryRecord = TermRecord;
export const TagRecord = TermRecord;
export type TagRecord = TermRecord;

export const CategoryCreate = z.strictObject({
  name: NonEmpty,
  description: z.string().optional(),
  slug: Slug.optional(),
  /** Must be an existing category id. */
  parent: Id.optional(),
});
export type CategoryCreate = z.infer<typeof CategoryCreate>;

export const CategoryUpdate = CategoryCreate.partial();
export type CategoryUpdate = z.infer<typeof CategoryUpdate>;

export const TagCreate = z.strictObject({
  name: NonEmpty,
  description: z.string().optional(),
  slug: Slug.optional(),
});
export type TagCreate = z.infer<typeof TagCreate>;

export const TagUpdate = TagCreate.partial();
export type TagUpdate = z.infer<typeof TagUpdate>;
