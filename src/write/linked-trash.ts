import { linkedNoun, type LinkedKind } from './linked-writes.ts';
import type { PlannedWrite } from './writer.ts';

/** LinkedResolver.usable: whether an event write may link this venue/organizer (false: in the site's trash). */
export type Usable = (kind: LinkedKind, id: number) => Promise<boolean>;

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
  const keep = async (kind: LinkedKind, id: number): Promise<boolean> => {
    if (await usable(kind, id)) return true;
    notes.push(`written without its ${linkedNoun(kind)} id ${id}, which is in the site's trash`);
    return false;
  };
  const venue = p.body.venue !== undefined && (await keep('venues', p.body.venue)) ? p.body.venue : undefined;
  const organizer: number[] = [];
  for (const id of p.body.organizer) if (await keep('organizers', id)) organizer.push(id);
  if (notes.length === 0) return p;
  const body = { ...p.body, organizer };
  if (venue === undefined) delete body.venue;
  return { ...p, body, notes: [...p.notes, ...notes] };
}
