import { describe, expect, it } from 'vitest';
import { memoized } from '../../src/util/memo.ts';

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
});
