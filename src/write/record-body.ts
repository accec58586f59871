import { eventCostText, type EventRecord } from '../api/index.ts';
import type { EventBody } from './body.ts';

function ids(list: unknown): number[] {
  return Array.isArray(list) ? list.map((t) => (t as { id?: number }).id).filter((n): n is number => typeof n === 'number') : [];
}

/** A venue field may be `[]`, one object, or an array of objects (multi-venue add-ons). */
export function venueIdOf(venue: unknown): number | undefined {
  if (Array.isArray(venue)) return (venue[0] as { id?: number } | undefined)?.id;
  if (venue && typeof venue === 'object') return (venue as { id?: number }).id;
  return undefined;
}

/**
 * The full write body that reproduces a record as it is on the site, for updates that must not
 * reset anything (e.g. moving an event to draft): the site resets every omitted field.
 */
export function recordToBody(r: EventRecord): EventBody {
  const body: EventBody = {
    title: r.title,
    status: r.status ?? 'publish',
    timezone: r.timezone || 'UTC',
    all_day: r.all_day ?? false,
    start_date: r.start_date,
    end_date: r.end_date,
    cost: eventCostText(r) ?? '',
    website: typeof r.website === 'string' && r.website !== r.url ? r.website : '',
    show_map: r.show_map ?? true,
    show_map_link: r.show_map_link ?? true,
    hide_from_listings: r.hide_from_listings ?? false,
    sticky: r.sticky ?? false,
    featured: r.featured ?? false,
    categories: ids(r.categories),
    tags: ids(r.tags),
    organizer: ids(r.organizer),
  };
  if (r.description) body.description = r.description;
  if (r.excerpt) body.excerpt = r.excerpt;
  const image = r.image && typeof r.image === 'object' ? (r.image as { id?: number }).id : undefined;
  if (image) body.image = String(image);
  const venue = venueIdOf(r.venue);
  if (venue !== undefined) body.venue = venue;
  return body;
}
