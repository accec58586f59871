/**
 * Entry of the worker thread that parses ICS files (isolate.ts starts it and may hand it several files,
 * one at a time). Runs normalizeIcs on the bytes of each request and posts back the result in its compact
 * wire form (wire.ts), or the typed error as plain data (class identity does not survive postMessage).
 */
import { parentPort } from 'node:worker_threads';
import { IcsError, icsErrorData } from './errors.ts';
import { normalizeIcs, type IcsNormalizeOptions } from './normalize.ts';
import { toWire, type WireResult } from './wire.ts';

export interface ParseRequest {
  bytes: Uint8Array;
  opts: IcsNormalizeOptions;
}

export type ParseReply =
  | { ok: true; result: WireResult }
  | { ok: false; ics?: ReturnType<typeof icsErrorData>; message: string };

function parse(req: ParseRequest): ParseReply {
  try {
    return { ok: true, result: toWire(normalizeIcs(req.bytes, req.opts)) };
  } catch (err) {
    return err instanceof IcsError ? { ok: false, ics: icsErrorData(err), message: err.message } : { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

parentPort!.on('message', (req: ParseRequest) => parentPort!.postMessage(parse(req)));
