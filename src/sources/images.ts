import type { EventDraft, Normalized, OrganizerDraft, VenueDraft } from '../model/draft.ts';
import { ImageGuard, type ImageGuardOptions } from './fetch/image-guard.ts';

type AnyDraft = EventDraft | VenueDraft | OrganizerDraft;
type WithImage = { image?: string };

/**
 * Drops every image URL (events, their venues and organizers, venue and organizer drafts) that
 * the address guard refuses, before anything is sent to the site. One warning per refused URL,
 * with the number of drafts that carried it.
 */
export async function dropUnsafeImages(
  items: readonly Normalized<AnyDraft>[],
  opts: ImageGuardOptions,
  warn: (message: string) => void,
  /** The run's guard, when it already judged some of these URLs (its verdicts then stay the same). */
  guard = new ImageGuard(opts),
): Promise<void> {
  const holders = new Map<string, WithImage[]>();
  const add = (h: WithImage | undefined): void => {
    if (!h?.image) return;
    const list = holders.get(h.image);
    if (list) list.push(h);
    else holders.set(h.image, [h]);
  };
  for (const item of items) {
    if (!item.ok) continue;
    const d = item.draft as AnyDraft & Partial<Pick<EventDraft, 'venue' | 'organizers'>>;
    add(d);
    add(d.venue);
    for (const o of d.organizers ?? []) add(o);
  }
  if (holders.size === 0) return;
  const urls = [...holders.keys()];
  const problems = await Promise.all(urls.map((u) => guard.problem(u)));
  for (const [i, url] of urls.entries()) {
    const problem = problems[i];
    const list = holders.get(url)!;
    if (problem === undefined) continue;
    for (const h of new Set(list)) delete h.image;
    warn(`image ${url} not sent to the site (it would fetch it): ${problem}; dropped from ${list.length} item(s)`);
  }
}
