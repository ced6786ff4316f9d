import { expect } from 'chai';
import { escapeHtml, isObject, positiveInteger } from './index.js';

describe('plain values', () => {
  it('isObject is true for plain objects only', () => {
    expect(isObject({})).to.equal(true);
    expect(isObject({ a: 1 })).to.equal(true);
    for (const value of [null, undefined, [], 'x', 1, true]) expect(isObject(value)).to.equal(false);
  });

  it('positiveInteger takes safe whole numbers from 1 and their 1 to 15 digits', () => {
    expect(positiveInteger(1)).to.equal(1);
    expect(positiveInteger('42')).to.equal(42);
    expect(positiveInteger('999999999999999')).to.equal(999999999999999);
    for (const value of [0, -1, 1.5, '0', '', ' 1', '1e3', '-2', '1234567890123456', Number.MAX_SAFE_INTEGER + 1, null, undefined, {}, [1]]) {
      expect(positiveInteger(value), String(value)).to.equal(undefined);
    }
  });

  it('positiveInteger with anySize takes whole numbers from 1 of any size, and still nothing else', () => {
    expect(positiveInteger('1234567890123456', { anySize: true })).to.equal(1234567890123456);
    expect(positiveInteger(Number.MAX_SAFE_INTEGER + 1, { anySize: true })).to.equal(Number.MAX_SAFE_INTEGER + 1);
    expect(positiveInteger('007', { anySize: true })).to.equal(7);
    for (const value of [0, -1, 1.5, '0', '', ' 1', '1e3', '-2', '9'.repeat(400), Infinity, NaN, null, undefined, {}, [1]]) {
      expect(positiveInteger(value, { anySize: true }), String(value)).to.equal(undefined);
    }
  });

  it('escapeHtml turns &<>"\' into numeric references and leaves other text alone', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).to.equal('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    expect(escapeHtml('plain text, é')).to.equal('plain text, é');
  });
});
