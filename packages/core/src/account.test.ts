import { expect } from 'chai';
import { accountProblem, normalizeAccount } from './account.js';

describe('accountProblem(account) and normalizeAccount(account)', () => {
  it('accepts ordinary accounts in any script, with inner plain spaces', () => {
    for (const account of ['admin', 'alice.smith@example.com', 'Zoë', '王小明', 'Łukasz_2', 'john doe', 'ñandú-01', 'Ωmega']) {
      expect(accountProblem(account), account).to.equal(undefined);
    }
  });

  it('refuses control characters', () => {
    for (const account of ['ali\u0000ce', 'alice\n', 'a\tb', 'a\u007fb', 'a\u0085b', 'a\u009bb']) {
      expect(accountProblem(account), JSON.stringify(account)).to.match(/^must not contain control characters \(U\+/);
    }
  });

  it('refuses invisible and direction-changing characters (look-alike accounts)', () => {
    const invisible = [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u00ad',
      '\u200e',
      '\u200f',
      '\u061c',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u180e',
      '\u034f',
      '\u115f',
      '\u1160',
      '\u3164',
      '\uffa0',
      '\u2800',
      '\ufe0f',
      '\u{e0041}',
      '\u{e0100}',
      '\u2028',
      '\u2029',
      '\ue000',
      '\ud800',
    ];
    for (const char of invisible) {
      const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      expect(accountProblem(`admin${char}`), code).to.equal(`must not contain invisible or direction-changing characters (${code})`);
      expect(accountProblem(`${char}admin`), code).to.not.equal(undefined);
    }
  });

  it('refuses spaces other than the plain one, and leading or trailing spaces', () => {
    for (const char of ['\u00a0', '\u2002', '\u2009', '\u3000', '\u205f', '\u1680']) expect(accountProblem(`ad${char}min`)).to.match(/spaces other than the plain space/);
    expect(accountProblem(' admin')).to.equal('must not begin or end with a space');
    expect(accountProblem('admin ')).to.equal('must not begin or end with a space');
  });

  it('refuses text that is not NFC, and normalizeAccount makes it NFC', () => {
    const decomposed = 'Zoe\u0308'; // e + combining diaeresis
    expect(accountProblem(decomposed)).to.equal('must be in Unicode normalisation form C');
    expect(normalizeAccount(decomposed)).to.equal('Zoë');
    expect(accountProblem(normalizeAccount(decomposed))).to.equal(undefined);
    expect(normalizeAccount(5)).to.equal(5);
  });

  it('leaves non-strings to the type checks', () => {
    expect(accountProblem(undefined)).to.equal(undefined);
    expect(accountProblem(42)).to.equal(undefined);
  });
});
