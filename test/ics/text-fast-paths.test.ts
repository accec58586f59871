import { describe, expect, it } from 'vitest';
import { collapseSpaces, escapeHtml, nfc, plainToHtml } from '../../src/sources/ics/text.ts';
import { prng } from '../../src/util/random.ts';

// The content helpers skip their work when it cannot change the text (src/sources/ics/text.ts); each
// must give exactly what the full operation gives, which these tests compare directly.

const WHITESPACE = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\ufeff', '\u3000'];
const PIECES = ['a', 'Köln', 'é', 'e\u0301', 'Å', '\u212b', '&', '<b>', '"q"', '>', '\u00ff', 'ſ', '한', '\u1100\u1161', ...WHITESPACE];

function randomText(r: () => number): string {
  let s = '';
  for (let i = Math.floor(r() * 8); i > 0; i--) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

describe('ICS text fast paths give what the full operation gives', () => {
  it('nfc: no character up to U+00FF, alone or beside another, changes under NFC', () => {
    for (let a = 0; a < 256; a++) {
      const one = String.fromCharCode(a);
      expect(nfc(one)).toBe(one.normalize('NFC'));
      for (let b = 0; b < 256; b++) {
        const two = String.fromCharCode(a, b);
        expect(two.normalize('NFC') === two, `U+${a.toString(16)} U+${b.toString(16)}`).toBe(true);
      }
    }
  });

  it('nfc, collapseSpaces, escapeHtml and plainToHtml on random text', () => {
    const r = prng(20261127);
    for (let i = 0; i < 20_000; i++) {
      const s = randomText(r);
      expect(nfc(s)).toBe(s.normalize('NFC'));
      expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, ' ').trim());
      expect(escapeHtml(s)).toBe(s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;')));
      expect(plainToHtml(s)).toBe(s.split('\n').map(escapeHtml).join('<br>\n'));
    }
  });

  it('composes what needs composing', () => {
    expect(nfc('Cafe\u0301')).toBe('Café');
    expect(nfc('\u212b')).toBe('Å');
    expect(collapseSpaces(' a \t b\n\nc ')).toBe('a b c');
    expect(plainToHtml('a & b\n<c>')).toBe('a &amp; b<br>\n&lt;c&gt;');
  });
});
