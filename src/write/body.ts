import type { EventDraft, OrganizerDraft, VenueDraft } from '../model/draft.ts';

/**
 * Write bodies are always complete: a site update resets every field it is not sent
 * (src/sandbox/event-write.ts models the reset), so each body states every field calsync manages, defaults included.
 * Empty text is left out because the site refuses `""` for title/description/excerpt.
 */
export interface EventLinks {
  categories: number[];
  tags: number[];
  venue?: number;
  organizers: number[];
}

export interface EventBody {
  title: string;
  description?: string;
  excerpt?: string;
  status: string;
  timezone: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  image?: string;
  cost: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  categories: number[];
  tags: number[];
  venue?: number;
  organizer: number[];
}

const text = (s: string | undefined) => (s && s.trim() !== '' ? s : undefined);

export function eventBody(d: EventDraft, links: EventLinks, defaults: { status?: string } = {}): EventBody {
  const body: EventBody = {
    title: d.title,
    status: d.status ?? defaults.status ?? 'publish',
    timezone: d.timezone,
    all_day: d.all_day,
    start_date: d.start_date,
    end_date: d.end_date,
    cost: d.cost ?? '',
    website: d.website ?? '',
    show_map: d.show_map ?? true,
    show_map_link: d.show_map_link ?? true,
    hide_from_listings: d.hide_from_listings ?? false,
    sticky: d.sticky ?? false,
    featured: d.featured ?? false,
    categories: [...new Set(links.categories)].sort((a, b) => a - b),
    tags: [...new Set(links.tags)].sort((a, b) => a - b),
    organizer: [...new Set(links.organizers)],
  };
  const description = text(d.description);
  if (description) body.description = description;
  const excerpt = text(d.excerpt);
  if (excerpt) body.excerpt = excerpt;
  if (text(d.image)) body.image = d.image;
  if (links.venue !== undefined) body.venue = links.venue;
  return body;
}

export interface VenueBody {
  venue: string;
  description?: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  stateprovince?: string;
  zip?: string;
  phone?: string;
  website?: string;
  image?: string;
  status: string;
  /** Strings on the wire: the site refuses a JSON boolean here (test/contract/linked.test.ts). */
  show_map: 'true' | 'false';
  show_map_link: 'true' | 'false';
}

export function venueBody(v: VenueDraft, defaults: { status?: string } = {}): VenueBody {
  const body: VenueBody = {
    venue: v.venue,
    status: v.status ?? defaults.status ?? 'publish',
    show_map: v.show_map === false ? 'false' : 'true',
    show_map_link: v.show_map_link === false ? 'false' : 'true',
  };
  for (const k of ['description', 'address', 'city', 'country', 'province', 'state', 'stateprovince', 'zip', 'phone', 'website', 'image'] as const) {
    const val = text(v[k]);
    if (val) body[k] = val;
  }
  return body;
}

export interface OrganizerBody {
  organizer: string;
  description?: string;
  email?: string;
  phone?: string;
  website?: string;
  image?: string;
  status: string;
}

export function organizerBody(o: OrganizerDraft, defaults: { status?: string } = {}): OrganizerBody {
  const body: OrganizerBody = { organizer: o.organizer, status: o.status ?? defaults.status ?? 'publish' };
  for (const k of ['description', 'email', 'phone', 'website', 'image'] as const) {
    const val = text(o[k]);
    if (val) body[k] = val;
  }
  return body;
}
