import { describe, expect, it } from 'vitest';
import { inertText, parsedHtml, plainText, sanitizeHtml } from '../../src/model/html.ts';

/**
 * sanitizeHtml skips the parser for text with no `<` and no `&` (src/model/html.ts, inertText).
 * These tests hold that shortcut to exactly what sanitize-html itself returns for the same text.
 */

const TABLE: [string, string][] = [
  ['', ''],
  ['plain words', 'plain words'],
  ['  padded\t', 'padded'],
  ['line one\nline two\r\nline three\rfour', 'line one\nline two\r\nline three\rfour'],
  ['a > b >> c', 'a &gt; b &gt;&gt; c'],
  ['"quoted" and \'single\'', '"quoted" and \'single\''],
  ['nul\u0000 and bell\u0007 and del\u007f', 'nul\u0000 and bell\u0007 and del\u007f'],
  ['\u00a0\u00a0', ''],
  ['\u00a0x\u00a0', 'x'],
  ['\ufeffbom', 'bom'],
  ['Café 🎉 東京 Zürich', 'Café 🎉 東京 Zürich'],
  ['lone \ud800 surrogate', 'lone \ud800 surrogate'],
  ['=/!?-]];#x3a javascript:alert(1)', '=/!?-]];#x3a javascript:alert(1)'],
  ['--> ]]> ?>', '--&gt; ]]&gt; ?&gt;'],
];

/** Small deterministic PRNG (mulberry32): the same strings every run, so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Everything that might matter to an HTML tokenizer except `<` and `&`: whitespace of every kind,
// control and C1 characters, quotes, `>`, markup punctuation, non-ASCII and surrogates.
const ALPHABET = [
  'a', 'Z', '0', ' ', '\t', '\n', '\r', '\r\n', '\f', '\v', '\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u0085',
  '\u009f', '\u00a0', '\u2028', '\u2029', '\u3000', '\ufeff', '\ufffd', '>', '"', "'", '=', '/', '!', '?', '-', ']', '#',
  ';', ':', '`', '\\', 'é', '東', '🎉', '\ud800', '\udfff', 'script', 'nbsp', 'x3c', 'javascript:',
];

function randomText(next: () => number): string {
  const length = Math.floor(next() * 40);
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

describe('sanitizer fast path for text without markup or entities', () => {
  it.each(TABLE)('sanitizeHtml(%j) is %j, as the parser makes it', (input, expected) => {
    expect(inertText(input)).toBe(parsedHtml(input));
    expect(sanitizeHtml(input)).toBe(expected);
  });

  it('equals sanitize-html on 20,000 random strings without < or &', () => {
    const next = prng(16);
    const differ: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const s = randomText(next);
      if (inertText(s) !== parsedHtml(s)) differ.push(JSON.stringify(s));
    }
    expect(differ.slice(0, 5)).toEqual([]);
  });

  it('still parses as soon as a < or & is present (markup and entities are not taken as text)', () => {
    expect(sanitizeHtml('a <script>alert(1)</script> b')).toBe('a  b');
    expect(sanitizeHtml('fish &amp; chips &lt;b&gt;')).toBe('fish &amp; chips &lt;b&gt;');
    expect(sanitizeHtml('x > y <b>z</b>')).toBe('x &gt; y <b>z</b>');
  });

  it('remembered answers for repeated short values are the parser\'s, before and after the memo fills', () => {
    const values = Array.from({ length: 3000 }, (_, i) => `Food &amp; Drink <b>${i}</b> & <script>x${i}</script>`);
    const first = values.map((v) => [plainText(v), sanitizeHtml(v)]);
    const again = values.map((v) => [plainText(v), sanitizeHtml(v)]);
    expect(again).toEqual(first);
    expect(first[7]).toEqual(['Food & Drink 7 & ', 'Food &amp; Drink <b>7</b> &amp;']);
    expect(sanitizeHtml(values[7]!)).toBe(parsedHtml(values[7]!).trim());
  });
});
