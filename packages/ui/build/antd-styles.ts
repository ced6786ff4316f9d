// antd's styles for the admin UI, made at build time (the page's policy refuses styles injected at
// run time, so everything antd needs has to be a stylesheet of the build):
// - antd/dist/antd.css split in two: what the sign-in page draws (design tokens, resets, motions
//   and the components the sign-in page uses) and the rest, loaded with the signed-in shell;
// - a dark theme: antd's dark algorithm's CSS variables, rendered once in Node with cssinjs, kept
//   where they differ from the light ones and scoped under `:root[data-theme=dark]`.
// Served to the app as the virtual modules `virtual:fw-antd/{first,rest,dark}.css` (see vite.config.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'vite';

/**
 * The antd components (first word of their `.ant-` class; `input-number` apart from `input`, and the grid's sized
 * columns such as `col-24` or `col-md` apart from `col`) the sign-in page draws, with the motions
 * and helpers they use: their rules go into the first stylesheet. Anything else (the shell, the
 * model page) comes with the second one; a rule naming no component always goes first.
 */
export const FIRST_SCREEN_COMPONENTS: readonly string[] = [
  'alert',
  'btn',
  'col',
  'row',
  'css',
  'divider',
  'empty',
  'fade',
  'form',
  'input',
  'move',
  'select',
  'slide',
  'space',
  'typography',
  'wave',
  'zoom',
  'motion',
  'virtual',
];

/** The top-level rules of a stylesheet (an at-rule with its block counts as one). */
export function topLevelRules(css: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i < css.length; i += 1) {
    const c = css[i];
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) {
        rules.push(css.slice(start, i + 1).trim());
        start = i + 1;
      }
    }
  }
  return rules;
}

/** The class key the stylesheet scopes its design tokens under: the one scoping the most blocks. */
export function cssVarKeyOf(css: string): string {
  const counts = new Map<string, number>();
  for (const m of css.matchAll(/\.(css-var-[\w-]+)[.{]/g)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  const key = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!key || !css.includes(`.${key}{--ant-blue:`)) throw new Error('antd/dist/antd.css: no .css-var-<key> token block found (antd changed its stylesheet?)');
  return key;
}

/**
 * Splits antd.css into the sign-in page's rules and the rest. Token blocks of other keys (nested
 * providers of antd's own demo render) and cssinjs's cache marker are dropped. The global token
 * block also applies to `:root`, so the app's own stylesheet can use antd's variables anywhere.
 */
export function splitAntdCss(css: string, key: string, first: readonly string[] = FIRST_SCREEN_COMPONENTS): { first: string; rest: string } {
  const firstSet = new Set(first);
  const out = { first: [] as string[], rest: [] as string[] };
  for (const rule of topLevelRules(css)) {
    const selector = rule.slice(0, rule.indexOf('{'));
    if (/\.data-ant-cssinjs-cache-path/.test(selector)) continue;
    const otherKey = /\.(css-var-[\w-]+)/.exec(selector);
    if (otherKey && otherKey[1] !== key) continue;
    if (selector === `.${key}`) {
      out.first.push(`:root,${rule}`);
      continue;
    }
    // The component: the first `.ant-` class of the rule (inside an at-rule, of its first rule).
    const component = /\.ant-([a-z]+(?:-number|-(?:xs|sm|md|lg|xl|xxl|xxxl|offset|push|pull|order|\d+)\b)?)/.exec(
      selector.startsWith('@') && !selector.startsWith('@keyframes') ? rule : selector,
    )?.[1];
    out[component === undefined || firstSet.has(component) ? 'first' : 'rest'].push(rule);
  }
  return { first: out.first.join('\n'), rest: out.rest.join('\n') };
}

/** `selector{a:1;b:2;}` blocks → selector → declarations. */
function declarationsBySelector(css: string): Map<string, Map<string, string>> {
  const blocks = new Map<string, Map<string, string>>();
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const decls = blocks.get(m[1]!.trim()) ?? new Map<string, string>();
    for (const d of m[2]!.split(';')) {
      const at = d.indexOf(':');
      if (at > 0) decls.set(d.slice(0, at).trim(), d.slice(at + 1).trim());
    }
    blocks.set(m[1]!.trim(), decls);
  }
  return blocks;
}

/**
 * antd's CSS variables for every component under `algorithm`, as cssinjs writes them: every antd
 * component rendered once to a string in Node (none of them mounts).
 */
async function renderedTokenCss(dark: boolean, key: string): Promise<string> {
  const require = createRequire(import.meta.url);
  // Loose local types: importing React's own types here would bring its empty DOM declarations
  // into the root type check (this file is type-checked with the tests, which have no DOM lib).
  const { createElement: h } = require('react') as { createElement(type: unknown, props?: unknown, ...children: unknown[]): unknown };
  const { renderToString } = require('react-dom/server') as { renderToString(element: unknown): string };
  const antd = require('antd') as { theme: { darkAlgorithm: unknown; defaultAlgorithm: unknown }; ConfigProvider: unknown } & Record<string, unknown>;
  const { createCache, extractStyle, StyleProvider } = require('@ant-design/cssinjs') as {
    createCache(): unknown;
    extractStyle(cache: unknown, options: { plain: boolean; types: string[] }): string;
    StyleProvider: unknown;
  };
  const cache = createCache();
  const skip = new Set(['ConfigProvider', 'App', 'Grid']);
  const theme = { algorithm: dark ? antd.theme.darkAlgorithm : antd.theme.defaultAlgorithm, cssVar: { key }, zeroRuntime: true };
  const warn = console.error;
  // antd warns about components rendered without their required props: irrelevant here.
  console.error = () => undefined;
  try {
    for (const [name, component] of Object.entries(antd)) {
      if (skip.has(name) || !/^[A-Z]/.test(name) || (typeof component !== 'function' && typeof component !== 'object') || component === null) continue;
      try {
        renderToString(h(StyleProvider, { cache }, h(antd.ConfigProvider, { theme }, h(component as never))));
      } catch {
        // A component that cannot render without props has no tokens of its own worth a variable.
      }
    }
  } finally {
    console.error = warn;
  }
  // 'token': the global design tokens' block; 'cssVar': each component's own.
  return extractStyle(cache, { plain: true, types: ['token', 'cssVar'] });
}

/**
 * The dark theme's stylesheet: every antd CSS variable whose dark value differs from the light
 * one, under `:root[data-theme=dark]` (the global tokens also on `:root` itself), plus
 * `color-scheme: dark` so the browser's own controls and scrollbars follow.
 */
export async function darkThemeCss(key: string): Promise<string> {
  const [light, dark] = await Promise.all([renderedTokenCss(false, key), renderedTokenCss(true, key)]).then((all) => all.map(declarationsBySelector));
  const out: string[] = [':root[data-theme=dark]{color-scheme:dark;}'];
  for (const [selector, decls] of dark!) {
    const before = light!.get(selector);
    if (selector.includes('cssinjs-cache-path')) continue;
    const changed = [...decls].filter(([name, value]) => before?.get(name) !== value);
    if (changed.length === 0) continue;
    // cssinjs writes the key as a bare class (`._key_`); antd.css's blocks name it `.css-var-_key_`.
    const scoped = selector.replace(/^\.[\w-]+/, `.${key}`);
    const where = scoped === `.${key}` ? `:root[data-theme=dark],:root[data-theme=dark] ${scoped}` : `:root[data-theme=dark] ${scoped}`;
    out.push(`${where}{${changed.map(([n, v]) => `${n}:${v}`).join(';')}}`);
  }
  if (out.length < 2) throw new Error('antd dark theme: no variable changed (antd changed how it writes CSS variables?)');
  return out.join('\n');
}

const VIRTUAL = 'virtual:fw-antd/';
const RESOLVED = '/@fw-antd/';

/**
 * The Vite plugin serving `virtual:fw-antd/first.css`, `virtual:fw-antd/rest.css` and
 * `virtual:fw-antd/dark.css`, and defining `__ANTD_CSS_VAR_KEY__` for the app's theme.
 */
export function antdStyles(): Plugin {
  const css = readFileSync(createRequire(import.meta.url).resolve('antd/dist/antd.css'), 'utf8');
  const key = cssVarKeyOf(css);
  let parts: { first: string; rest: string } | undefined;
  let dark: Promise<string> | undefined;
  return {
    name: 'fw-antd-styles',
    config: () => ({ define: { __ANTD_CSS_VAR_KEY__: JSON.stringify(key) } }),
    resolveId: (id) => (id.startsWith(VIRTUAL) ? RESOLVED + id.slice(VIRTUAL.length) : undefined),
    async load(id) {
      if (!id.startsWith(RESOLVED)) return undefined;
      const name = id.slice(RESOLVED.length);
      if (name === 'dark.css') return (dark ??= darkThemeCss(key));
      parts ??= splitAntdCss(css, key);
      if (name === 'first.css') return parts.first;
      if (name === 'rest.css') return parts.rest;
      throw new Error(`${id}: no such stylesheet (first.css, rest.css, dark.css)`);
    },
  };
}
