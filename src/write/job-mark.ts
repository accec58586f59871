import { createHash } from 'node:crypto';
import type { LedgerEntry } from './ledger.ts';

/**
 * Which job wrote a ledger entry, so that a job run again finds its own writes. A job whose worker
 * was killed is taken over by another worker (BullMQ's stalled-job recovery), and a failed one is
 * retried: the new delivery starts the run again and finds what the earlier one wrote in the ledger,
 * where it looks unchanged. Marked with the job, it reports what that delivery did (created, updated).
 * The mark is the same for every delivery of one job and differs between jobs: an ICS import's
 * job, each CSV chunk job and each sync page job (chunks of one run may share a slug between them).
 */

/** What a write did to the record, as the ledger entry keeps it (`new`) and the report tells it. */
export type WriteOutcome = 'created' | 'updated';

/** BullMQ's identity of a job: its queue, id and creation time (fixed for its deliveries). */
export interface JobIdentity {
  queueName: string;
  id?: string;
  timestamp: number;
}

/**
 * A job's mark: a short hash (10 characters, in every entry it writes) of its queue, id and creation
 * time. The time keeps a job id used again (a queue's id counter reset with its keys) from taking a
 * later run's "unchanged" for an earlier one's writes.
 */
export function jobMark(job: JobIdentity): string {
  return createHash('sha256').update(`${job.queueName}\u0000${job.id ?? ''}\u0000${job.timestamp}`).digest('base64url').slice(0, 10);
}

/**
 * What an earlier delivery of the job marked `mark` did to the record, when that delivery stored
 * `entry`; undefined otherwise (another job's entry, or no mark: an inline run).
 */
export function earlierWrite(entry: LedgerEntry | undefined, mark: string | undefined): WriteOutcome | undefined {
  if (mark === undefined || entry === undefined || entry.run !== mark) return undefined;
  return entry.new ? 'created' : 'updated';
}

/**
 * A write by the job marked `mark` over the entry the ledger held (`prior`): the outcome the run
 * reports (created when an earlier delivery of the job created the record and this one writes it
 * again: `earlier`), and the fields of the entry it stores.
 */
export function markedWrite(outcome: WriteOutcome, prior: LedgerEntry | undefined, mark: string | undefined): { outcome: WriteOutcome; earlier: boolean; stamp: Pick<LedgerEntry, 'run' | 'new'> } {
  if (mark === undefined) return { outcome, earlier: false, stamp: {} };
  const earlier = outcome === 'updated' && earlierWrite(prior, mark) === 'created';
  const net = earlier ? 'created' : outcome;
  return { outcome: net, earlier, stamp: net === 'created' ? { run: mark, new: true } : { run: mark } };
}
