import { expect } from 'chai';
import { FwDefinitionError } from './errors.js';
import { DEFAULT_FRAME_ANCESTORS, checkFrameAncestors, pageContentSecurityPolicy } from './page-policy.js';

describe('pageContentSecurityPolicy(kind, frameAncestors)', () => {
  it("gives every page default-src 'self' and frame-ancestors 'self', and the UI images from blob: and data:", () => {
    expect(pageContentSecurityPolicy('print')).to.equal("default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'");
    expect(pageContentSecurityPolicy('auth')).to.equal(pageContentSecurityPolicy('print'));
    expect(pageContentSecurityPolicy('ui')).to.equal(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'",
    );
    // No inline or evaluated script anywhere (scripts fall back to default-src 'self'); inline style only in the UI.
    for (const kind of ['ui', 'print', 'auth'] as const) expect(pageContentSecurityPolicy(kind)).not.to.match(/script-src|unsafe-eval|\*/);
    expect(pageContentSecurityPolicy('print')).not.to.contain('unsafe');
    expect(pageContentSecurityPolicy('auth')).not.to.contain('unsafe');
    expect(pageContentSecurityPolicy('ui', ["'self'", 'https://portal.example.com'])).to.match(/; frame-ancestors 'self' https:\/\/portal\.example\.com$/);
    expect(DEFAULT_FRAME_ANCESTORS).to.deep.equal(["'self'"]);
  });
});

describe('checkFrameAncestors(key, value)', () => {
  it('takes keywords, schemes and origins with wildcards, ports and paths', () => {
    const good = ["'self'", 'https:', 'https://portal.example.com', 'https://*.example.com:8443', 'http://localhost:5173', 'portal.example.com', 'https://a.example/admin/'];
    expect(checkFrameAncestors('k', good)).to.deep.equal(good);
    expect(Object.isFrozen(checkFrameAncestors('k', ["'self'"]))).to.equal(true);
    expect(checkFrameAncestors('k', ["'none'"])).to.deep.equal(["'none'"]);
  });

  it('refuses what could end the directive or is no source, naming the option', () => {
    const bad: unknown[] = [
      undefined,
      null,
      'https://a.example',
      [],
      [''],
      [' '],
      ['https://a.example;script-src *'],
      ["'self' https://a.example"],
      ['https://a.example,https://b.example'],
      ["'unsafe-inline'"],
      ["'none'", "'self'"],
      ['https://a.example/"x'],
      [1],
    ];
    for (const value of bad) {
      expect(() => checkFrameAncestors('fwUi.frameAncestors', value), JSON.stringify(value))
        .to.throw(FwDefinitionError)
        .with.property('key', 'fwUi.frameAncestors');
    }
  });
});
