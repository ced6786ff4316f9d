import { expect } from 'chai';
import { linkTargetProblem, menuTargetProblem, pageTargetProblem } from './menu-target.js';

describe('pageTargetProblem(value), linkTargetProblem(value) and menuTargetProblem(type, value)', () => {
  it('a page is a relative path that stays on this site', () => {
    for (const value of ['/reports', '/reports/summary?year=2026#top', 'reports', './reports', '/docs/authors.html', '/tokens/list', '/a%20b']) {
      expect(pageTargetProblem(value), value).to.equal(undefined);
    }
    for (const value of [
      'https://elsewhere.example/',
      '//elsewhere.example',
      '/\\elsewhere.example',
      'http:elsewhere.example',
      'https:/elsewhere.example',
      'javascript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
      'blob:https://x/y',
    ]) {
      expect(pageTargetProblem(value), value).to.be.a('string');
    }
  });

  it('a page never reaches the sign-on hand-off page, in any spelling', () => {
    for (const value of [
      '/auth.html',
      'auth.html',
      '/AUTH.HTML',
      '/x/../auth.html',
      '/x/..%2Fauth.html',
      '/%61uth.html',
      '/%2561uth.html',
      '/admin/auth.html',
      '/auth.html.',
      '/auth.html%20',
    ]) {
      expect(pageTargetProblem(value), value).to.match(/hand-off|backslashes|spaces/);
    }
  });

  it('no menu carries a token, in any spelling', () => {
    for (const value of ['/r?token=x', '/r?_token=x', '/r?a=1&Token=x', '/r?%74oken=x', '/r?token%3Dx', '/r#token=x', '/r;_token=x']) {
      expect(pageTargetProblem(value), value).to.equal('must not carry a token (token= or _token=)');
      expect(linkTargetProblem(`https://example.org${value}`), value).to.equal('must not carry a token (token= or _token=)');
    }
    // Words that merely contain "token" are fine.
    expect(pageTargetProblem('/r?pagetoken=1')).to.equal(undefined);
  });

  it('refuses control characters, backslashes, surrounding spaces and broken encodings', () => {
    for (const value of ['java\tscript:alert(1)', '/a\nb', '\\auth.html', '/a%5Cb', ' /reports', '/reports ', '/100%', '/%%32%35']) {
      expect(pageTargetProblem(value), JSON.stringify(value)).to.be.a('string');
    }
  });

  it('a link is a full http or https address', () => {
    for (const value of ['https://example.org/', 'http://intranet.example:8080/x?y=1']) expect(linkTargetProblem(value), value).to.equal(undefined);
    for (const value of [
      '/reports',
      'example.org',
      'https:example.org',
      'https:/example.org',
      'ftp://example.org/',
      'mailto:a@example.org',
      'javascript://example.org/%0aalert(1)',
    ]) {
      expect(linkTargetProblem(value), value).to.be.a('string');
    }
  });

  it('checks only pages and links, and only when they have a value', () => {
    expect(menuTargetProblem('page', '/auth.html')).to.be.a('string');
    expect(menuTargetProblem('link', 'javascript:alert(1)')).to.be.a('string');
    expect(menuTargetProblem('page', null)).to.equal(undefined);
    expect(menuTargetProblem('page', '')).to.equal(undefined);
    expect(menuTargetProblem('table', 'FwUser')).to.equal(undefined);
  });
});
