import { once } from 'node:events';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, fetchSource, type LookupFn } from '../../src/sources/fetch/index.ts';
import { installTripwire, rejection, startRawServer, startServer, within, type TestServer, testServerAllow } from './support.ts';

const allow = testServerAllow;
const MB = 1024 * 1024;

let tripwire: ReturnType<typeof installTripwire>;
beforeAll(() => {
  tripwire = installTripwire();
});
afterAll(() => tripwire.restore());

/** Sample Buffer memory while `work` runs; returns the peak growth over the starting level. */
async function peakBufferGrowth<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; growth: number }> {
  const start = process.memoryUsage().arrayBuffers;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }, 2);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  return { result, growth: peak - start };
}

/**
 * `mb` megabytes of zeros, compressed by streaming one reused 1 MB block, so building the bombs
 * leaves no 100 MB garbage behind to blur the memory measurements.
 */
async function compressZeros(z: zlib.Gzip | zlib.BrotliCompress | zlib.Deflate, mb: number): Promise<Buffer> {
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const block = Buffer.alloc(MB);
  for (let i = 0; i < mb; i++) if (!z.write(block)) await once(z, 'drain');
  z.end();
  await once(z, 'end');
  return Buffer.concat(out);
}

describe('byte cap', () => {
  let server: TestServer;
  let gzipBomb: Buffer;
  let brBomb: Buffer;
  let deflateBomb: Buffer;
  /** How many bytes the server got to write before we hung up, per path. */
  const written: Record<string, number> = {};

  beforeAll(async () => {
    gzipBomb = await compressZeros(zlib.createGzip({ level: 9 }), 100);
    brBomb = await compressZeros(zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }), 100);
    deflateBomb = await compressZeros(zlib.createDeflate({ level: 9 }), 100);
    server = await startServer((req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/chunked/')) {
        // No Content-Length at all: 10 MB in 64 KB chunks, stopping when we hang up.
        const total = Number(url.slice('/chunked/'.length));
        res.writeHead(200, { 'content-type': 'text/calendar' });
        let sent = 0;
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (sent < total && !res.destroyed) {
            const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
            sent += piece.length;
            written[url] = sent;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      } else if (url.startsWith('/exact/')) {
        const n = Number(url.slice('/exact/'.length));
        res.writeHead(200, { 'content-length': n });
        res.end(Buffer.alloc(n, 0x62));
      } else if (url === '/declared-huge') {
        // Announces 100 MB and then sends nothing: only an up-front refusal is fast.
        res.writeHead(200, { 'content-length': String(100 * MB) });
        res.flushHeaders();
      } else if (url === '/bomb/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': gzipBomb.length });
        res.end(gzipBomb);
      } else if (url === '/bomb/br') {
        res.writeHead(200, { 'content-encoding': 'br', 'content-length': brBomb.length });
        res.end(brBomb);
      } else if (url === '/bomb/deflate') {
        res.writeHead(200, { 'content-encoding': 'deflate', 'content-length': deflateBomb.length });
        res.end(deflateBomb);
      } else if (url === '/bomb/double') {
        // gzip of a gzip bomb: two layers, the outer one tiny.
        const twice = zlib.gzipSync(gzipBomb);
        res.writeHead(200, { 'content-encoding': 'gzip, gzip' });
        res.end(twice);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  afterAll(() => server.close());

  it('stops a chunked body with no Content-Length at the cap', async () => {
    const err = await rejection(within(10_000, fetchSource(`${server.origin}/chunked/${10 * MB}`, { allow, maxBytes: MB })));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('too-large');
    expect(err.message).toMatch(/over the 1 MB limit.*raise maxBytes/);
    // We hung up long before the 10 MB were written.
    expect(written[`/chunked/${10 * MB}`]).toBeLessThan(10 * MB);
  });

  it('accepts a body of exactly the cap and refuses one byte more', async () => {
    const ok = await fetchSource(`${server.origin}/exact/${MB}`, { allow, maxBytes: MB });
    expect(ok.bytes).toBe(MB);
    const err = await rejection(fetchSource(`${server.origin}/chunked/${MB + 1}`, { allow, maxBytes: MB }));
    expect(err.code).toBe('too-large');
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    const started = Date.now();
    const err = await rejection(
      within(5000, fetchSource(`${server.origin}/declared-huge`, { allow, maxBytes: MB, timeouts: { bodyMs: 4000, totalMs: 4500 } })),
    );
    expect(err.code).toBe('too-large');
    expect(err.message).toMatch(/announces a body over the 1 MB limit/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('stops a gzip bomb (small gzip → 100 MB) at the cap with bounded memory', async () => {
    expect(gzipBomb.length).toBeLessThan(MB); // it passes any wire-size check
    const { result, growth } = await peakBufferGrowth(() =>
      within(10_000, fetchSource(`${server.origin}/bomb/gzip`, { allow, maxBytes: MB })),
    );
    expect(result.status).toBe('rejected');
    const err = (result as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('too-large');
    expect(err.message).toMatch(/once decompressed/);
    expect(growth).toBeLessThan(24 * MB);
  });

  it.each(['br', 'deflate', 'double'])('stops a %s bomb at the cap', async (kind) => {
    const { result, growth } = await peakBufferGrowth(() =>
      within(10_000, fetchSource(`${server.origin}/bomb/${kind}`, { allow, maxBytes: MB })),
    );
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason.code).toBe('too-large');
    expect(growth).toBeLessThan(24 * MB);
  });

  // Last in this block: it leaves ~50 MB of garbage that would blur the measurements above.
  it('stops the gzip bomb at the default 50 MB cap too', async () => {
    const err = await rejection(within(20_000, fetchSource(`${server.origin}/bomb/gzip`, { allow })));
    expect(err.code).toBe('too-large');
    expect(err.message).toMatch(/50 MB/);
  });
});

describe('lying and misbehaving servers', () => {
  it('never returns more than Content-Length when the server sends 10 MB after claiming 10 bytes', async () => {
    const raw = await startRawServer((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\ncontent-type: text/calendar\r\n\r\n');
        s.end(Buffer.alloc(10 * MB, 0x63));
      });
    });
    try {
      const outcome = await Promise.allSettled([
        within(10_000, fetchSource(`http://127.0.0.1:${raw.port}/`, { allow, maxBytes: MB })),
      ]);
      if (outcome[0].status === 'fulfilled') {
        expect(outcome[0].value.bytes).toBe(10);
        expect(outcome[0].value.body?.length).toBe(10);
      } else {
        expect(outcome[0].reason).toBeInstanceOf(FetchError);
      }
    } finally {
      await raw.close();
    }
  });

  it('stops a close-delimited body (no Content-Length, no chunking) at the cap', async () => {
    const raw = await startRawServer((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n');
        const chunk = Buffer.alloc(64 * 1024, 0x64);
        let sent = 0;
        const pump = () => {
          while (sent < 10 * MB && !s.destroyed) {
            sent += chunk.length;
            if (!s.write(chunk)) return void s.once('drain', pump);
          }
          s.end();
        };
        pump();
      });
    });
    try {
      const err = await rejection(within(10_000, fetchSource(`http://127.0.0.1:${raw.port}/`, { allow, maxBytes: MB })));
      expect(err.code).toBe('too-large');
    } finally {
      await raw.close();
    }
  });
});

describe('timeouts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/trickle') {
        // One byte a second, forever: never idle long enough for the body timeout.
        res.writeHead(200, { 'content-type': 'text/calendar' });
        const timer = setInterval(() => res.write('x'), 1000);
        res.write('x');
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-type': 'text/calendar' });
        res.write('BEGIN:VCALENDAR\r\n'); // then silence
      } else if (req.url === '/stall-headers') {
        // never answers
      }
    });
  });
  afterAll(() => server.close());

  it('stops a 1 byte/s trickle at the total deadline', async () => {
    const started = Date.now();
    const err = await rejection(within(5000, fetchSource(`${server.origin}/trickle`, { allow, timeouts: { totalMs: 1500 } })));
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/did not finish within 1\.5s|1500ms/);
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(3000);
    expect(err.retryable).toBe(true);
  });

  it('stops a body that goes silent at the body timeout', async () => {
    const started = Date.now();
    const err = await rejection(within(5000, fetchSource(`${server.origin}/stall-body`, { allow, timeouts: { bodyMs: 400 } })));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/stopped sending data/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('stops a server that never answers at the headers timeout', async () => {
    const started = Date.now();
    const err = await rejection(within(5000, fetchSource(`${server.origin}/stall-headers`, { allow, timeouts: { headersMs: 400 } })));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/did not answer within/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('stops a connect that never completes (DNS hangs) at the connect timeout', async () => {
    const hang: LookupFn = () => {}; // never calls back
    const started = Date.now();
    const err = await rejection(within(5000, fetchSource('http://hangs.example/', { lookup: hang, timeouts: { connectMs: 300 } })));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/could not connect within 300ms/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("rejects with the caller's abort reason when the caller cancels", async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => controller.abort(reason), 200);
    const err = await rejection(within(5000, fetchSource(`${server.origin}/trickle`, { allow, signal: controller.signal })));
    expect(err).toBe(reason);
  });

  it('does not start at all when the signal is already aborted', async () => {
    const before = server.connections;
    const err = await rejection(fetchSource(`${server.origin}/trickle`, { allow, signal: AbortSignal.abort(new Error('stop')) }));
    expect(err.message).toBe('stop');
    expect(server.connections).toBe(before);
  });
});
