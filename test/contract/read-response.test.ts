import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { readResponse } from '../../src/api/transport.ts';

/**
 * src/api/transport.ts reads responses with its own dispatch handler instead of
 * `pool.request()` + `body.text()`. These hold it to what that pair gives on the same wire bytes:
 * the final response's status and headers, the body text (a UTF-8 BOM dropped, characters split
 * across packets joined), and the signal's reason when a call is aborted before or during it.
 */

/** A server answering each request with the raw parts given for its path, written with a pause between them. */
function rawServer(answers: Record<string, Array<string | Buffer>>): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.on('data', async (d) => {
      buffered += d.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const path = buffered.split(' ')[1]!;
      buffered = '';
      requests.push(path);
      for (const part of answers[path] ?? []) {
        if (socket.destroyed) return;
        socket.write(part);
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

const json = (body: Buffer | string, extra = '') => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${b.length}\r\nx-total: 3\r\n${extra}\r\n`;
};
const bom = Buffer.from([0xef, 0xbb, 0xbf]);
const accented = Buffer.from('{"title":"Fête à l’église"}');
// The split falls inside "ê" (two bytes in UTF-8), so the characters straddle two packets.
const splitAt = accented.indexOf(0xc3) + 1;
const answers = {
  '/plain': [json('{"id":1}'), '{"id":1}'],
  '/bom': [json(Buffer.concat([bom, accented])), bom, accented.subarray(0, splitAt), accented.subarray(splitAt)],
  '/early-hints': ['HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\n', json('{"id":2}'), '{"id":2}'],
  '/chunked': ['HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n', '5\r\n{"cod\r\n', '10\r\ne":"rest_no_rout\r\n', '4\r\ne"}\n\r\n', '0\r\n\r\n'],
  '/empty': ['HTTP/1.1 204 No Content\r\n\r\n'],
  '/stall': [json('{"id":3,"padding":"xxxxxxxx"}'), '{"id":3,'],
};

describe('the transport reads responses as pool.request() + body.text() do', () => {
  let server: Awaited<ReturnType<typeof rawServer>>;
  let pool: Pool;
  beforeAll(async () => {
    server = await rawServer(answers);
    pool = new Pool(server.origin, { connections: 4 });
  });
  afterAll(async () => {
    await pool.destroy();
    await server.close();
  });

  it.each(['/plain', '/bom', '/early-hints', '/chunked', '/empty'])('%s', async (path) => {
    const ours = await readResponse(pool, { method: 'GET', path });
    const res = await pool.request({ method: 'GET', path });
    const text = await res.body.text();
    expect(ours).toEqual({ status: res.statusCode, headers: res.headers, text });
  });

  it('joins a character split across packets and drops the BOM', async () => {
    expect((await readResponse(pool, { method: 'GET', path: '/bom' })).text).toBe('{"title":"Fête à l’église"}');
  });

  it('an already aborted signal sends nothing and gives its reason', async () => {
    const before = server.requests.length;
    const reason = new Error('gave up before');
    const err = await readResponse(pool, { method: 'GET', path: '/plain' }, AbortSignal.abort(reason)).catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(server.requests.length).toBe(before);
  });

  it('a signal aborting mid-body gives its reason, as pool.request() does', async () => {
    const reasons = await Promise.all(
      [
        (signal: AbortSignal) => readResponse(pool, { method: 'GET', path: '/stall' }, signal),
        async (signal: AbortSignal) => (await pool.request({ method: 'GET', path: '/stall', signal })).body.text(),
      ].map((read) => {
        const ac = new AbortController();
        const reason = new Error('deadline');
        setTimeout(() => ac.abort(reason), 100);
        return read(ac.signal).then(
          () => 'resolved',
          (e: unknown) => (e === reason ? 'its reason' : e),
        );
      }),
    );
    expect(reasons).toEqual(['its reason', 'its reason']);
  });
});
