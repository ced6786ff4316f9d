// The build's antd stylesheets (issue 20 §9, §10): antd.css split between the sign-in page and the
// rest without losing a rule, and the dark theme's CSS variables.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { cssVarKeyOf, darkThemeCss, splitAntdCss, topLevelRules } from '../build/antd-styles.js';

const antdCss = readFileSync(createRequire(import.meta.url).resolve('antd/dist/antd.css'), 'utf8');

describe('build/antd-styles', () => {
  it('topLevelRules keeps at-rules whole and braces inside strings out of the count', () => {
    expect(topLevelRules('a{b:1}@media (x){.c{d:2}.e{f:3}} .g::after{content:"}{"}')).to.deep.equal(['a{b:1}', '@media (x){.c{d:2}.e{f:3}}', '.g::after{content:"}{"}']);
  });

  it('splits a stylesheet by component: tokens, named components and rules of no component first', () => {
    const css = [
      '.css-var-k{--ant-blue:#1677ff}',
      '.css-var-other{--ant-blue:#000}',
      '.data-ant-cssinjs-cache-path{content:""}',
      '.ant-btn{color:red}',
      '.ant-table{color:blue}',
      '.ant-input-number{width:90px}',
      '.ant-input{width:100%}',
      '@media (min-width: 576px){.ant-col-sm-24{flex:0 0 100%}}',
      '.ant-col{position:relative}',
      '@keyframes antFadeIn{0%{opacity:0}}',
      'html{margin:0}',
    ].join('');
    const { first, rest } = splitAntdCss(css, 'css-var-k', ['btn', 'input', 'col']);
    expect(topLevelRules(first)).to.deep.equal([
      ':root,.css-var-k{--ant-blue:#1677ff}',
      '.ant-btn{color:red}',
      '.ant-input{width:100%}',
      '.ant-col{position:relative}',
      '@keyframes antFadeIn{0%{opacity:0}}',
      'html{margin:0}',
    ]);
    expect(topLevelRules(rest)).to.deep.equal(['.ant-table{color:blue}', '.ant-input-number{width:90px}', '@media (min-width: 576px){.ant-col-sm-24{flex:0 0 100%}}']);
  });

  it("splits antd's own stylesheet without losing a rule of its key, the sign-in page's components first", () => {
    const key = cssVarKeyOf(antdCss);
    const { first, rest } = splitAntdCss(antdCss, key);
    const kept = topLevelRules(antdCss).filter((r) => (!/cssinjs-cache-path/.test(r) && !/\.css-var-/.test(r.slice(0, r.indexOf('{')))) || r.startsWith(`.${key}`));
    expect(topLevelRules(first).length + topLevelRules(rest).length).to.equal(kept.length);
    expect(first).to.contain(`:root,.${key}{--ant-blue:`);
    expect(first)
      .to.match(/\.ant-btn\b/)
      .and.to.match(/\.ant-form-item\b/)
      .and.to.match(/\.ant-select\b/);
    expect(first).not.to.match(/\.ant-table\b/);
    expect(rest)
      .to.match(/\.ant-table\b/)
      .and.to.match(/\.ant-drawer\b/)
      .and.to.match(/\.ant-picker\b/);
    expect(first.length).to.be.lessThan(antdCss.length / 3);
  });

  it("writes antd's dark algorithm as CSS variables under :root[data-theme=dark], only those that change", async function () {
    this.timeout(60_000);
    const key = cssVarKeyOf(antdCss);
    const dark = await darkThemeCss(key);
    const global = new RegExp(`^:root\\[data-theme=dark\\],:root\\[data-theme=dark\\] \\.${key}\\{([^}]*)\\}$`, 'm').exec(dark);
    expect(global, 'the global token block').not.to.equal(null);
    expect(global![1]).to.contain('--ant-color-bg-container:#141414').and.to.contain('--ant-color-bg-layout:#000');
    // Sizes, fonts and radii are the same in both themes: not repeated.
    expect(global![1]).not.to.contain('--ant-font-size:').and.not.to.contain('--ant-border-radius:');
    expect(dark).to.contain(`:root[data-theme=dark] .${key}.ant-btn{`);
    expect(dark).to.contain(':root[data-theme=dark]{color-scheme:dark;}');
    expect(dark).not.to.contain('cssinjs-cache-path');
  });
});
