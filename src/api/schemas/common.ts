import { z } from 'zod';

/**
 * Building blocks shared by the record, body and query schemas.
 *
 * Records are parsed leniently (the site adds keys through plugin filters, redacts password
 * protected events to `null`/`[]`, and drops empty fields from venues and organizers), while write
 * bodies are strict: an unknown key in a body is almost always a typo, and because updates reset
 * every field they omit (src/sandbox/event-write.ts models the reset), a misspelt field silently clears data on the site.
 */

/** `YYYY-MM-DD HH:MM:SS`: the only date form the site reads reliably (no `T`, offset, `Z` or epoch). */
export const WALL_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const WallTime = z.string().regex(WALL_TIME, 'expected local wall time YYYY-MM-DD HH:MM:SS');

/** A list filter date: a day or a wall time, never an offset (the site would misread it). */
export const QueryDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/, 'expected YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS]');

/** WordPress slug rules as calsync writes them; a slash would change the route. */
export const Slug = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^/?#\s]+$/, 'a slug may not contain "/", "?", "#" or whitespace');

export const Id = z.number().int().positive();

/** Text fields the site validates with `is_string`: an empty string is a 400 (test/contract/real-parity.test.ts). */
export const NonEmpty = z.string().min(1);

/** Booleans in records: `null` when the event is password-redacted (as src/sandbox/shapes.ts renders it). */
export const MaybeBool = z.boolean().nullable();

/** Counts arrive as JSON numbers, but headers and some plugins give strings. */
export const Count = z.union([z.number(), z.string().regex(/^\d+$/)]).transform(Number);

/** `author` is a string of digits on the wire although /doc says integer (as src/sandbox/shapes.ts renders it). */
export const Author = z.union([z.string(), z.number()]);

const DATE_PARTS = ['year', 'month', 'day', 'hour', 'minutes', 'seconds'] as const;
type DatePart = string | number | undefined;

/**
 * Date parts are zero-padded strings ("07"), not integers as /doc claims. Checked by hand, not as a
 * zod object of six unions: every record carries four of them (local and UTC start and end), which
 * made them half the cost of parsing a listed event (the sync planner reads every source event),
 * while nothing reads them. Same rule: an object whose six parts, where present, are strings or numbers.
 */
export const DateDetails = z.custom<{ [K in (typeof DATE_PARTS)[number]]?: DatePart } & Record<string, unknown>>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    DATE_PARTS.every((k) => {
      const part = (v as Record<string, unknown>)[k];
      return part === undefined || typeof part === 'string' || typeof part === 'number';
    }),
  'expected date parts (year, month, day, hour, minutes, seconds) as strings or numbers',
);
export type DateDetails = z.infer<typeof DateDetails>;

/** Featured image; `sizes` is an object keyed by size name although /doc says array. */
export const Image = z.looseObject({
  url: z.string().optional(),
  id: z.union([z.number(), z.string()]).optional(),
  extension: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  sizes: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
});
export type Image = z.infer<typeof Image>;

/** `false` when there is no image (PHP), an object otherwise. */
// `false` first: it is what most records carry, and a union tries its options in order.
export const MaybeImage = z.union([z.literal(false), z.null(), Image]);

/** The post fields venues and organizers share in records; all optional, empties are dropped. */
export const linkedPostShape = {
  id: z.number().int(),
  author: Author.optional(),
  status: z.string().optional(),
  date: z.string().optional(),
  date_utc: z.string().optional(),
  modified: z.string().optional(),
  modified_utc: z.string().optional(),
  url: z.string().optional(),
  description: z.string().optional(),
  excerpt: z.string().optional(),
  slug: z.string().optional(),
  image: MaybeImage.optional(),
  website: z.string().optional(),
  phone: z.string().optional(),
  json_ld: z.unknown().optional(),
  global_id: z.string().optional(),
  global_id_lineage: z.array(z.string()).optional(),
};
