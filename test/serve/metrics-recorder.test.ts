import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fieldOf, METRIC_KEYS, MetricsRecorder } from '../../src/metrics/recorder.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

describe('MetricsRecorder', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('regression: every site request was a Redis write of its own (one HINCRBYFLOAT per request, an eighth of a sync worker\'s CPU)', async () => {
    const prefix = testPrefix();
    const rec = new MetricsRecorder(redis, prefix, { flushMs: 60_000 });
    const multi = vi.spyOn(redis, 'multi');
    const single = vi.spyOn(redis, 'hincrbyfloat');
    try {
      for (let i = 0; i < 300; i++) rec.inc(METRIC_KEYS.requests, { site: 'dst', method: 'POST', status: i % 3 === 0 ? 201 : 200 });
      rec.observe(METRIC_KEYS.jobSeconds, { kind: 'sync-page' }, 0.4);
      rec.observe(METRIC_KEYS.jobSeconds, { kind: 'sync-page' }, 2);
      // Nothing sent before the flush, then one transaction for all of it.
      expect(single).not.toHaveBeenCalled();
      expect(multi).not.toHaveBeenCalled();
      await rec.flush();
      expect(multi).toHaveBeenCalledTimes(1);
    } finally {
      multi.mockRestore();
      single.mockRestore();
    }
    const h = await rec.read();
    expect(h[fieldOf(METRIC_KEYS.requests, { site: 'dst', method: 'POST', status: 201 })]).toBe('100');
    expect(h[fieldOf(METRIC_KEYS.requests, { site: 'dst', method: 'POST', status: 200 })]).toBe('200');
    expect(h[fieldOf(`${METRIC_KEYS.jobSeconds}_bucket`, { kind: 'sync-page', le: 0.5 })]).toBe('1');
    expect(h[fieldOf(`${METRIC_KEYS.jobSeconds}_bucket`, { kind: 'sync-page', le: 5 })]).toBe('2');
    expect(h[fieldOf(`${METRIC_KEYS.jobSeconds}_count`, { kind: 'sync-page' })]).toBe('2');
    expect(Number(h[fieldOf(`${METRIC_KEYS.jobSeconds}_sum`, { kind: 'sync-page' })])).toBeCloseTo(2.4);
    // A second flush with nothing counted sends nothing.
    await rec.flush();
    expect(Object.keys(await rec.read())).toHaveLength(Object.keys(h).length);
  });

  it('labels whose NUL-joined spelling is the same stay two fields (the field memo is skipped for a name or label holding a NUL)', async () => {
    const rec = new MetricsRecorder(redis, testPrefix(), { flushMs: 60_000 });
    // Both join to `m\0a\0x\0b\0y`: one label holding NULs, and two plain labels.
    const glued = { a: 'x\u0000b\u0000y' };
    const plain = { a: 'x', b: 'y' };
    rec.inc('m', glued);
    rec.inc('m', plain);
    await rec.flush();
    const h = await rec.read();
    expect(fieldOf('m', glued)).not.toBe(fieldOf('m', plain));
    expect(h[fieldOf('m', glued)]).toBe('1');
    expect(h[fieldOf('m', plain)]).toBe('1');
  });

  it('sends what it counted by itself, at most flushMs later', async () => {
    const rec = new MetricsRecorder(redis, testPrefix(), { flushMs: 30 });
    rec.inc(METRIC_KEYS.jobs, { kind: 'sync-page', outcome: 'completed' });
    rec.inc(METRIC_KEYS.jobs, { kind: 'sync-page', outcome: 'completed' }, 2);
    const field = fieldOf(METRIC_KEYS.jobs, { kind: 'sync-page', outcome: 'completed' });
    await vi.waitFor(async () => expect((await rec.read())[field]).toBe('3'), { timeout: 5000, interval: 20 });
  });
});
