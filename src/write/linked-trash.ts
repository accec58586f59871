import { eventFingerprint } from './body.ts';
import { linkedNoun, type LinkedKind } from './linked-writes.ts';
import type { PlannedWrite } from './writer.ts';

/**
 * What an event write links for a venue/organizer id of its plan: that id, the record created again
 * in its place (the site no longer had it at all), or nothing, and why.
 */
export type LinkUse = { id: number } | { left: 'trash' | 'gone' };

/** LinkedResolver.usable. */
export type Usable = (kind: LinkedKind, id: number) => Promise<LinkUse>;

/**
 * A venue or organizer calsync created (or linked) that someone trashed on the site stays
 * deleted, as a trashed event does: an event write must not link it again. On a real site (TEC
 * 6.17.2, test/contract/linked-trash.test.ts) the trash unlinks it from up to 10 upcoming events,
 * an event written with its id links it again (shown with status `trash`), and the next write of
 * that published event takes it out of the trash (TEC publishes the venue and organizers a
 * published event links). So, just before an event is written, the ids its plan links that the
 * run took from the ledger without a request are checked (once per run each, see usable) and
 * those in the trash are left out of the body sent. The plan keeps its fingerprint, that of the
 * body as planned: the ledger then sees the event unchanged while the feed does not change it (no
 * write, no look at the venue), and once the venue is restored on the site, the next write of the
 * event (the feed changed it) links it again.
 */
export async function confirmLinks(p: PlannedWrite, usable: Usable): Promise<PlannedWrite> {
  const notes: string[] = [];
  let replaced = false;
  const linked = async (kind: LinkedKind, id: number): Promise<number | undefined> => {
    const use = await usable(kind, id);
    if ('id' in use) {
      replaced ||= use.id !== id;
      return use.id;
    }
    notes.push(`written without its ${linkedNoun(kind)} id ${id}, which ${use.left === 'trash' ? "is in the site's trash" : 'the site no longer has'}`);
    return undefined;
  };
  const venue = p.body.venue === undefined ? undefined : await linked('venues', p.body.venue);
  const organizer: number[] = [];
  for (const id of p.body.organizer) {
    const kept = await linked('organizers', id);
    if (kept !== undefined) organizer.push(kept);
  }
  if (notes.length === 0 && !replaced) return p;
  const body = { ...p.body, organizer };
  if (venue === undefined) delete body.venue;
  else body.venue = venue;
  // A record created again in place of one the site lost is what the ledger should hold: the
  // fingerprint follows the body sent. One in the trash keeps the plan's (see above).
  return { ...p, body, notes: [...p.notes, ...notes], ...(replaced ? { fp: eventFingerprint(body, p.slug) } : {}) };
}
