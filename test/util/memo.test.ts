import { describe, expect, it } from 'vitest';
import { memoized, memoizedBy, memoizedByStrings } from '../../src/util/memo.ts';

describe('memoized', () => {
  it('calls the function once per distinct string, undefined results included', () => {
    const calls: string[] = [];
    const f = memoized((s) => {
      calls.push(s);
      return s === 'none' ? undefined : s.length;
    });
    expect([f('ab'), f('ab'), f('none'), f('none'), f('abc')]).toEqual([2, 2, undefined, undefined, 3]);
    expect(calls).toEqual(['ab', 'none', 'abc']);
  });

  it('stays bounded: cleared when full, long strings never kept', () => {
    let calls = 0;
    const f = memoized((s) => ++calls + s.length * 0, 2, 5);
    f('a');
    f('b');
    f('c'); // full: cleared, then 'c' kept
    expect(calls).toBe(3);
    f('c');
    expect(calls).toBe(3);
    f('a'); // forgotten at the clear
    expect(calls).toBe(4);
    f('longer');
    f('longer');
    expect(calls).toBe(6);
  });

  it('memoizedBy remembers by the key: arguments with the same key share one result, others do not', () => {
    const calls: string[] = [];
    const f = memoizedBy(
      (p: { cn?: string; value: string }) => (p.cn === undefined ? `-${p.value}` : `${p.cn.length}:${p.cn}${p.value}`),
      (p) => {
        calls.push(JSON.stringify(p));
        return { name: p.cn ?? p.value };
      },
    );
    const a = f({ cn: 'Ana', value: 'x' });
    expect(f({ cn: 'Ana', value: 'x' })).toBe(a);
    // Same characters, split differently between the two parts, or a part absent rather than empty.
    expect(f({ cn: 'An', value: 'ax' })).toEqual({ name: 'An' });
    expect(f({ cn: '', value: 'x' })).toEqual({ name: '' });
    expect(f({ value: 'x' })).toEqual({ name: 'x' });
    expect(calls).toHaveLength(4);
  });

  it('memoizedByStrings remembers by every string of the key, however the characters split between them', () => {
    const calls: string[] = [];
    const f = memoizedByStrings(
      2,
      (p: [string, string], out) => {
        out[0] = p[0];
        out[1] = p[1];
      },
      (p) => {
        calls.push(p.join('|'));
        return { name: p.join('+') };
      },
    );
    const a = f(['Town Hall', 'Springfield']);
    expect(f(['Town Hall', 'Springfield'])).toBe(a);
    expect(f(['Town Hal', 'lSpringfield'])).toEqual({ name: 'Town Hal+lSpringfield' });
    expect(f(['', 'Town HallSpringfield'])).toEqual({ name: '+Town HallSpringfield' });
    expect(f(['Town Hall', ''])).toEqual({ name: 'Town Hall+' });
    expect(calls).toHaveLength(4);
  });

  it('memoizedByStrings stays bounded: cleared when full, long keys never kept', () => {
    let calls = 0;
    const f = memoizedByStrings(2, (p: string[], out) => ((out[0] = p[0]!), (out[1] = p[1]!)), () => ++calls, 2, 6);
    f(['a', 'b']);
    f(['a', 'c']);
    f(['b', 'b']); // full: cleared, then kept
    expect(calls).toBe(3);
    expect(f(['b', 'b'])).toBe(3);
    f(['a', 'b']); // forgotten at the clear
    expect(calls).toBe(4);
    f(['long', 'key']);
    f(['long', 'key']);
    expect(calls).toBe(6);
  });
});
