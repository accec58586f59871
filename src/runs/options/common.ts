import { z } from 'zod';
import { resolveDateSpec } from '../../config/dates.ts';
import { Language } from '../../model/languages.ts';
import { ZoneName } from '../../model/zone-option.ts';

/**
 * Run options shared by several runs, each written once with its default and limits. The config
 * schema (src/config/schema.ts), the queue payloads (jobs/) and the CLI (src/cli/commands/) all
 * take their options from src/runs/options/, so a default or a limit cannot differ between them.
 */

export const RetirePolicy = z.enum(['keep', 'draft', 'trash', 'delete']);
export const OnEditPolicy = z.enum(['overwrite', 'preserve']);
/** Venues/organizers already on the site that calsync did not create: link only, or overwrite their fields. */
export const AdoptLinkedPolicy = z.enum(['link', 'overwrite']);
export const PostStatus = z.enum(['publish', 'draft']);

/** The site language a run reads and writes (`lang` on the CLI and queue, `language` in the config). */
export const RunLanguage = Language.default('en');

/** Options every import (ICS, CSV) has, config source or ad hoc. */
export const ImportFields = {
  status: PostStatus.default('publish'),
  /** Zone for floating times; absent: the target site's own zone. */
  defaultTimezone: ZoneName.optional(),
  createTerms: z.boolean().default(true),
  adoptLinked: AdoptLinkedPolicy.default('link'),
  /** A first run may create events another source of the site already imported: a second copy (src/runs/overlap-guard.ts). */
  allowOverlap: z.boolean().default(false),
  /** Hosts or CIDRs exempt from the SSRF guard (trusted internal feeds). */
  allow: z.array(z.string()).default([]),
};

/** `2026-01-01`, or relative to now: `-30d`, `+365d`, `+12w`. */
export const DateSpec = z.string().regex(/^([+-]\d+[dw]|\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?|now|today)$/, 'expected a date (YYYY-MM-DD) or a relative offset like -30d or +365d');

/** A config's date window (`{ "from": "2000-01-01", "to": "+365d" }`), resolved when each run starts. */
export const DateWindow = z
  .strictObject({ from: DateSpec, to: DateSpec })
  // Zod runs this beside a date's own issue: a date that is no date was already reported.
  .refine((w) => !validDates(w) || resolveDateSpec(w.to, new Date(), true) >= resolveDateSpec(w.from), { message: 'the window ends before it starts', path: ['to'] });
function validDates(w: { from: string; to: string }): boolean {
  return DateSpec.safeParse(w.from).success && DateSpec.safeParse(w.to).success;
}
export type DateWindow = z.infer<typeof DateWindow>;

/** The `<from>..<to>` form the CLI's `--window` and queue payloads take. */
export const windowSpec = (w: DateWindow): string => `${w.from}..${w.to}`;

/** The name of a configured thing (site, source, export, sync). */
export const ConfigName = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes');
