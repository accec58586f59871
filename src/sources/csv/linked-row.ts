import { cleanOrganizer, cleanVenue } from '../../model/clean.ts';
import type { OrganizerField, VenueField } from './fields.ts';
import { compact, joinAddress, normalizeName, type Row } from './row.ts';

/**
 * A venue or organizer row (a file of linked records, `--kind venues|organizers`) → the fields of
 * its draft (the schema checks them after), or undefined once the row has a problem. The identity
 * is the `--key` column's value, or the normalized name (case, spacing and Unicode forms aside).
 */

function identityOf(key: string | undefined, name: string): string {
  return key !== undefined ? `key:${key}` : normalizeName(name);
}

export function venueFields(row: Row<VenueField>, key: string | undefined): Record<string, unknown> | undefined {
  const name = row.get('venue');
  if (!name) row.fail('venue', 'is empty (a venue name is required)');
  const { status } = row.postStatus('status');
  const draft = compact({
    identity: identityOf(key, name),
    venue: name,
    description: row.text('description'),
    address: joinAddress(row.text('address'), row.text('address2')),
    city: row.text('city'),
    country: row.text('country'),
    province: row.text('province'),
    state: row.text('state'),
    stateprovince: row.text('stateprovince'),
    zip: row.text('zip'),
    phone: row.text('phone'),
    website: row.url('website'),
    image: row.url('image', true),
    show_map: row.bool('show_map'),
    show_map_link: row.bool('show_map_link'),
    status: status ?? row.ctx.status,
    slug: row.text('slug'),
  });
  const clean = cleanVenue(draft);
  if (name && !clean) row.fail('venue', 'has no text once markup is removed (a venue name is required)');
  return row.errors.length ? undefined : clean;
}

export function organizerFields(row: Row<OrganizerField>, key: string | undefined): Record<string, unknown> | undefined {
  const name = row.get('organizer');
  if (!name) row.fail('organizer', 'is empty (an organizer name is required)');
  const { status } = row.postStatus('status');
  const draft = compact({
    identity: identityOf(key, name),
    organizer: name,
    description: row.text('description'),
    email: row.email('email'),
    phone: row.text('phone'),
    website: row.url('website'),
    image: row.url('image', true),
    status: status ?? row.ctx.status,
    slug: row.text('slug'),
  });
  const clean = cleanOrganizer(draft);
  if (name && !clean) row.fail('organizer', 'has no text once markup is removed (an organizer name is required)');
  return row.errors.length ? undefined : clean;
}
