/**
 * Entry of the worker thread that parses ICS files (isolate.ts starts it and may hand it several files,
 * one at a time). Runs normalizeIcs on the bytes of each request and posts back the result in its compact
 * wire form (wire.ts), or the typed error as plain data (class identity does not survive postMessage).
 * With `stream`, the items go out in parts of at least STREAM_PART while the file is still being
 * parsed (the import plans them meanwhile); the final reply carries the rest and the summary. With
 * `keys`, each draft's slug and body shape are hashed here too, beside the parse, not on the import's thread.
 * The thread does not wait for the parts to be taken: the import keeps every item until its run ends
 * (prime, the changed-UIDs guard and retirement need the whole feed), so parts waiting in the port hold
 * no more than the one reply did, and the occurrence limit bounds both. Waiting would only slow parsing.
 */
import { parentPort, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { EventDraft, Normalized } from '../../model/draft.ts';
import { IcsError, icsErrorData } from './errors.ts';
import { normalizeIcs, type IcsNormalizeOptions } from './normalize.ts';
import type { ReusedGroupMeta } from './reuse.ts';
import { WireEncoder, type WireResult } from './wire.ts';
import { draftKey } from '../../write/draft-keys.ts';

export interface ParseRequest {
  bytes: Uint8Array;
  opts: IcsNormalizeOptions;
  /**
   * The groups to reuse, sent while the file is read (isolate.ts): once read, the thread waits on
   * `flag` (set to 1 by the sender) and takes the map from `port`.
   */
  reuseLater?: { flag: Int32Array; port: MessagePort };
  stream?: boolean;
  /** Send each draft's key (src/write/draft-keys.ts) for a writer with this status, worked out here on this thread. */
  keys?: { status: string };
}

/** Items per streamed part, at least: few messages, and the first part arrives early in the parse. */
export const STREAM_PART = 1000;

export type ParseReply =
  | { ok: true; result: WireResult }
  | { ok: false; ics?: ReturnType<typeof icsErrorData>; message: string }
  /** Items in file order, sent while parsing (a `stream` request). */
  | { part: unknown[] };

function parse(req: ParseRequest): ParseReply {
  try {
    const keys = req.keys;
    const wire = new WireEncoder(keys && ((d) => draftKey(d, req.opts.sourceKey, keys.status)));
    let sent = 0;
    const onItems = (items: readonly Normalized<EventDraft>[]): void => {
      if (items.length - sent < STREAM_PART) return;
      parentPort!.postMessage({ part: wire.encode(items, sent) } satisfies ParseReply);
      sent = items.length;
    };
    const later = req.reuseLater;
    const opts = later ? { ...req.opts, groups: { reuse: () => awaitReuse(later) } } : req.opts;
    const r = normalizeIcs(req.bytes, req.stream ? { ...opts, onItems } : opts);
    return { ok: true, result: { items: wire.encode(r.items, sent), summary: r.summary, ...(r.groups ? { groups: r.groups } : {}) } };
  } catch (err) {
    return err instanceof IcsError ? { ok: false, ics: icsErrorData(err), message: err.message } : { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** Blocks this thread until the map of groups to reuse has been sent (Atomics: the thread parses synchronously). */
function awaitReuse(later: { flag: Int32Array; port: MessagePort }): ReadonlyMap<string, ReusedGroupMeta> {
  Atomics.wait(later.flag, 0, 0);
  const got = receiveMessageOnPort(later.port)?.message as ReadonlyMap<string, ReusedGroupMeta> | undefined;
  later.port.close();
  return got ?? new Map();
}

parentPort!.on('message', (req: ParseRequest) => parentPort!.postMessage(parse(req)));
