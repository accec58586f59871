/**
 * The linked records' text fields, apart from the draft schemas (src/model/draft.ts) so that modules
 * run in the ICS parser thread can read them without loading zod (src/write/body.ts is one).
 */

/** How a linked record's text field is cleaned (src/model/clean.ts): sanitized HTML, plain text or a web link. */
export type TextKind = 'html' | 'text' | 'url';

/**
 * A venue's and an organizer's optional text fields, in the order drafts and write bodies list them, each
 * with how it is cleaned: the one list the draft schemas, the cleaning (src/model/clean.ts) and the write
 * bodies (src/write/body.ts) read, so a field added here is validated, cleaned and written alike.
 */
export const VENUE_TEXT_FIELDS = {
  description: 'html', address: 'text', city: 'text', country: 'text', province: 'text', state: 'text',
  stateprovince: 'text', zip: 'text', phone: 'text', website: 'url',
} as const satisfies Record<string, TextKind>;
export const ORGANIZER_TEXT_FIELDS = { description: 'html', email: 'text', phone: 'text', website: 'url' } as const satisfies Record<string, TextKind>;
