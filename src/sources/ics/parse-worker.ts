/**
 * Entry of the worker thread that parses one ICS file (isolate.ts starts it). Runs normalizeIcs on the
 * bytes it is given and posts back the result, or the typed error as plain data (class identity does
 * not survive postMessage).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IcsError, icsErrorData } from './errors.ts';
import { normalizeIcs, type IcsNormalizeOptions } from './normalize.ts';

export interface ParseRequest {
  bytes: Uint8Array;
  opts: IcsNormalizeOptions;
}

export type ParseReply =
  | { ok: true; result: ReturnType<typeof normalizeIcs> }
  | { ok: false; ics?: ReturnType<typeof icsErrorData>; message: string };

const req = workerData as ParseRequest;
let reply: ParseReply;
try {
  reply = { ok: true, result: normalizeIcs(req.bytes, req.opts) };
} catch (err) {
  reply = err instanceof IcsError ? { ok: false, ics: icsErrorData(err), message: err.message } : { ok: false, message: err instanceof Error ? err.message : String(err) };
}
parentPort!.postMessage(reply);
