/**
 * A post-status cell: publish/draft/pending/private/future; `cancelled` marks the event cancelled;
 * calendar states (confirmed/tentative) are not post statuses and are ignored.
 */

export interface PostStatus {
  status?: string;
  cancelled?: boolean;
}

export type StatusResult = { ok: true; value: PostStatus } | { ok: false; reason: string };

const PUBLISH = ['publish', 'published', 'public', 'live'];
const AS_IS = ['draft', 'pending', 'private', 'future'];
const CALENDAR_STATES = ['confirmed', 'tentative', 'scheduled'];

export function parseStatus(cell: string | undefined): StatusResult {
  const v = (cell ?? '').trim().toLowerCase();
  if (!v) return { ok: true, value: {} };
  if (PUBLISH.includes(v)) return { ok: true, value: { status: 'publish' } };
  if (AS_IS.includes(v)) return { ok: true, value: { status: v } };
  if (v === 'cancelled' || v === 'canceled') return { ok: true, value: { cancelled: true } };
  if (CALENDAR_STATES.includes(v)) return { ok: true, value: {} };
  return { ok: false, reason: `'${cell!.trim()}' is not a post status (publish, draft, pending, private, future or cancelled)` };
}
