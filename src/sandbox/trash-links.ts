import { nowStamps, type SiteConfig } from './context.ts';
import type { EventRecord, OrganizerRecord, VenueRecord } from './records.ts';
import type { Store } from './store.ts';

/**
 * What a real site does when a venue or organizer goes to the trash (TEC's cleanupPostVenues /
 * cleanupPostOrganizers, hooked on `trash_tribe_venue` / `trash_tribe_organizer`): a default
 * WP_Query for events whose `_EventVenueID` (`_EventOrganizerID`) is its id, then
 * `delete_post_meta($event, '_EventVenueID')` on each, which removes EVERY venue (organizer) link
 * of those events, not only the trashed one's. TEC's own query filter makes that query one page
 * (`posts_per_page`, the site's page size: 10 as installed) of published events (and private ones, the trashing user being an
 * administrator) that have not ended yet, earliest start first, then oldest post: a draft, a past
 * event, or the 11th upcoming one keeps its links, the trashed record's included. Measured on a
 * real TEC 6.17.2 site (test/contract/linked-trash.test.ts). Events refused an occurrence row are
 * left out, as every event query of the site leaves them out. The event's modification time is
 * not touched (delete_post_meta does not).
 */
export function unlinkTrashed(store: Store, site: SiteConfig, rec: VenueRecord | OrganizerRecord): void {
  const now = nowStamps(site).local;
  const isVenue = rec.kind === 'venue';
  let left = site.defaultPerPage;
  // sortedEvents is by start, then id: ids rise with post dates.
  for (const ev of store.sortedEvents(rec.lang)) {
    if (left === 0) break;
    if ((ev.status !== 'publish' && ev.status !== 'private') || ev.refused || ev.end < now) continue;
    if (isVenue ? ev.venue !== rec.id : !ev.organizers.includes(rec.id)) continue;
    left--;
    store.changePost(ev, (e) => {
      if (isVenue) e.venue = null;
      else e.organizers = [];
    });
  }
}

/**
 * TEC's publishAssociatedTypes (on `publish_tribe_events`, so on every write of a published
 * event): the venue and organizers the event links at that moment, before the write's own links
 * are saved, are published when they are neither published nor private, trashed ones included
 * (wp_publish_post: status only, the `__trashed` slug and the modification time stay). So a
 * published event written twice with a trashed venue's id takes that venue out of the trash on
 * the second write (test/contract/linked-trash.test.ts).
 */
export function publishLinkedOf(store: Store, ev: EventRecord): void {
  const ids = ev.venue === null ? ev.organizers : [ev.venue, ...ev.organizers];
  for (const id of ids) {
    const rec = store.venues.get(id) ?? store.organizers.get(id);
    if (!rec || rec.status === 'publish' || rec.status === 'private') continue;
    store.changePost(rec, (r) => {
      r.status = 'publish';
    });
  }
}
