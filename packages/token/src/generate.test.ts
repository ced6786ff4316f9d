import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { TOKEN_ALPHABET, TOKEN_LENGTH, generateToken, hashToken, isTokenShape } from '@fw/token';
import { UNIFORMITY_LIMITS, measureUniformity, uniformityFailures } from './uniformity.js';

/** The textbook mistake: one byte per character, reduced with `% 62`. */
function biasedToken(): string {
  return [...randomBytes(TOKEN_LENGTH)].map((b) => TOKEN_ALPHABET[b % 62]).join('');
}

function many(n: number, make: () => string): string[] {
  return Array.from({ length: n }, make);
}

describe('generateToken()', () => {
  it('returns 16 characters of [A-Za-z0-9], across many refills of its random pool', () => {
    expect(TOKEN_ALPHABET).to.have.length(62);
    expect(TOKEN_LENGTH).to.equal(16);
    const tokens = many(5_000, generateToken);
    for (const token of tokens) expect(token).to.match(/^[A-Za-z0-9]{16}$/);
    expect(new Set(tokens).size).to.equal(tokens.length);
  });
});

describe('uniformity check used by the conformance suite', () => {
  it('passes generateToken() over 1.6 million characters', () => {
    const report = measureUniformity(many(100_000, generateToken));
    expect(report.characters).to.equal(1_600_000);
    expect(report.perPosition).to.have.length(16);
    expect(uniformityFailures(report)).to.deep.equal([]);
  });

  it('fails a `% 62` generator by a wide margin, overall and at every position', () => {
    const report = measureUniformity(many(100_000, biasedToken));
    expect(report.overall).to.be.above(20 * UNIFORMITY_LIMITS.overall);
    for (const value of report.perPosition) expect(value).to.be.above(2 * UNIFORMITY_LIMITS.perPosition);
    expect(uniformityFailures(report)).to.have.length(17);
  });

  it('refuses characters outside the alphabet', () => {
    expect(() => measureUniformity(['AAAAAAAAAAAAAAA-'])).to.throw(/outside the token alphabet/);
  });
});

describe('isTokenShape(value)', () => {
  it('accepts exactly 16 characters of [A-Za-z0-9]', () => {
    expect(isTokenShape('Ab3dEf7hIj1lMn0p')).to.equal(true);
    expect(isTokenShape(generateToken())).to.equal(true);
  });

  it('rejects everything else', () => {
    const bad: unknown[] = [
      undefined,
      null,
      1234567890123456,
      ['Ab3dEf7hIj1lMn0p'],
      '',
      'Ab3dEf7hIj1lMn0',
      'Ab3dEf7hIj1lMn0pq',
      'Ab3dEf7hIj1lMn0_',
      'Ab3dEf7hIj1lMn0é',
      'Ab3dEf7hIj1lMn0\n',
      'Ab3dEf7hIj1lMn0p\n',
      'Ａb3dEf7hIj1lMn0p',
    ];
    for (const value of bad) expect(isTokenShape(value), JSON.stringify(value)).to.equal(false);
  });
});

describe('hashToken(token)', () => {
  it('is SHA-256 as lowercase hex', () => {
    expect(hashToken('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = generateToken();
    expect(hashToken(token))
      .to.match(/^[0-9a-f]{64}$/)
      .and.equal(hashToken(token));
    expect(hashToken(token)).to.not.include(token);
  });

  it('hashes the UTF-8 bytes of any text, as a Hash object does (tokens stored by earlier versions still match)', () => {
    for (const text of ['', 'q3ZL0bV9xTn2aKcE', 'é€😀', 'lone \ud800 surrogate', 'x'.repeat(10_000)]) {
      expect(hashToken(text), JSON.stringify(text.slice(0, 20))).to.equal(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });
});
