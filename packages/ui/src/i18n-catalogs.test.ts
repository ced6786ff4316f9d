import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';
import { BUILTIN_MODELS, FW_LOCALES } from '@fw/core';

// Issue 20 §8: six languages, complete. Every catalog has exactly English's keys, none empty,
// the same placeholders; every built-in model, field, choice and function menu has a title in
// the model catalogs; and no user-visible text in the app's components skips the catalogs.

const APP = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src');
const I18N = join(APP, 'i18n');
type Catalog = Record<string, string>;

/** Loads a catalog module by path (kept out of the type graph: the app has its own tsconfig). */
async function catalog(path: string): Promise<Catalog> {
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const exported = Object.values(module).filter((v): v is Catalog => typeof v === 'object' && v !== null);
  expect(exported, `${path} exports one catalog`).to.have.length(1);
  return exported[0]!;
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
}

/** What differs between a catalog and English: missing, extra, empty, and placeholder mismatches. */
function problems(english: Catalog, other: Catalog): string[] {
  const out: string[] = [];
  for (const key of Object.keys(english)) {
    if (!(key in other)) out.push(`missing ${key}`);
    else if (typeof other[key] !== 'string' || other[key]!.trim() === '') out.push(`empty ${key}`);
    else if (placeholders(english[key]!).join() !== placeholders(other[key]!).join()) out.push(`placeholders of ${key}: ${JSON.stringify(other[key])}`);
  }
  for (const key of Object.keys(other)) if (!(key in english)) out.push(`extra ${key}`);
  for (const [key, value] of Object.entries(english)) if (value.trim() === '') out.push(`empty English ${key}`);
  return out;
}

/** The catalog keys the built-in models need: every model, field and choice. */
function builtinKeys(): string[] {
  const keys: string[] = [];
  for (const model of BUILTIN_MODELS) {
    keys.push(`title.${model.name}`);
    if (model.singularTitle !== undefined) keys.push(`singular.${model.name}`);
    for (const name of model.fieldNames) {
      keys.push(`field.${model.name}.${name}`);
      for (const choice of model.fields[name]!.edit.choices ?? []) keys.push(`choice.${model.name}.${name}.${String(choice.value)}`);
    }
  }
  return keys;
}

const OTHER_LOCALES = FW_LOCALES.filter((l) => l !== 'en');

describe('i18n catalogs (issue 20 §8)', () => {
  it('the UI speaks the six languages of FW_LOCALES, each with a UI and a model catalog', () => {
    const files = readdirSync(I18N);
    expect(FW_LOCALES.filter((l) => !files.includes(`${l}.ts`))).to.deep.equal([]);
    const models = readdirSync(join(I18N, 'models')).map((f) => f.replace(/\.ts$/, ''));
    expect(models.sort()).to.deep.equal([...FW_LOCALES].sort());
  });

  for (const locale of OTHER_LOCALES) {
    it(`${locale}: the UI catalog has English's keys, none empty, the same placeholders`, async () => {
      const english = await catalog(join(I18N, 'en.ts'));
      expect(problems(english, await catalog(join(I18N, `${locale}.ts`)))).to.deep.equal([]);
    });

    it(`${locale}: the model catalog has English's keys, none empty, the same placeholders`, async () => {
      const english = await catalog(join(I18N, 'models', 'en.ts'));
      expect(problems(english, await catalog(join(I18N, 'models', `${locale}.ts`)))).to.deep.equal([]);
    });
  }

  it('zh-CN addresses the person one way throughout: 您, never 你 (a dialog and the note beside it said both)', async () => {
    const informal = (c: Catalog) => Object.entries(c).filter(([, text]) => text.includes('你'));
    const found = [...informal(await catalog(join(I18N, 'zh-CN.ts'))), ...informal(await catalog(join(I18N, 'models', 'zh-CN.ts')))];
    expect(found.map(([key, text]) => `${key}: ${text}`)).to.deep.equal([]);
    expect(Object.values(await catalog(join(I18N, 'zh-CN.ts'))).some((text) => text.includes('您'))).to.equal(true);
  });

  it('the problems check itself finds a missing, an extra, an empty key and a lost placeholder', () => {
    const english = { a: 'A {n}', b: 'B', c: 'C' };
    expect(problems(english, { a: 'x', c: ' ', d: 'D' })).to.deep.equal(['placeholders of a: "x"', 'missing b', 'empty c', 'extra d']);
  });

  it('every built-in model, field and choice, and every function menu, has an English title', async () => {
    const english = await catalog(join(I18N, 'models', 'en.ts'));
    const needed = builtinKeys();
    expect(
      needed.filter((k) => !(k in english)),
      'missing',
    ).to.deep.equal([]);
    const functionKeys = ['ADD', 'EDIT', 'DELETE', 'EXPORT', 'IMPORTABLE', 'VIEW_DETAIL'].map((s) => `function.${s}`);
    expect(
      Object.keys(english).filter((k) => !needed.includes(k) && !functionKeys.includes(k)),
      'for nothing',
    ).to.deep.equal([]);
    expect(functionKeys.filter((k) => !(k in english))).to.deep.equal([]);
  });

  it("the English model catalog says what the built-in definitions say (the server's texts)", async () => {
    const english = await catalog(join(I18N, 'models', 'en.ts'));
    for (const model of BUILTIN_MODELS) {
      expect(english[`title.${model.name}`], model.name).to.equal(model.title);
      for (const name of model.fieldNames) {
        const field = model.fields[name]!;
        // Hidden keys and unlabelled choices get a proper word; the rest match the server.
        if (field.edit.type !== 'HIDDEN') expect(english[`field.${model.name}.${name}`], `${model.name}.${name}`).to.equal(field.views.title);
        for (const choice of field.edit.choices ?? []) {
          if (choice.label !== String(choice.value)) expect(english[`choice.${model.name}.${name}.${String(choice.value)}`]).to.equal(choice.label);
        }
      }
    }
  });
});

// Props whose text a person reads or hears.
const TEXT_PROPS = new Set(['title', 'placeholder', 'aria-label', 'label', 'alt', 'okText', 'cancelText', 'tooltip', 'content', 'description', 'message', 'help', 'extra']);
// Texts that need no translation: the product's default name, and "ID", written so in all six languages.
// (Symbols such as "…", "/" or "#" hold no letter and pass anyway.)
const ALLOWED = new Set(['Fw admin', 'ID']);

/** Literal texts a person would read that do not go through `t(…)`, as `file:line "text"`. */
function untranslated(file: string, text = readFileSync(file, 'utf8')): string[] {
  // A .ts file holds no JSX: parsed as TSX, a generic call (`get<Row>('/x')`) would read as an element.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    const trimmed = text.trim();
    if (!/\p{L}/u.test(trimmed) || ALLOWED.has(trimmed)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${relative(APP, file)}:${line + 1} ${JSON.stringify(trimmed)}`);
  };
  const literal = (node: ts.Node | undefined): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression =>
    node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node));
  const literalText = (node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression) =>
    ts.isTemplateExpression(node) ? [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ') : node.text;
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) report(node, node.text);
    if (ts.isJsxAttribute(node) && TEXT_PROPS.has(node.name.getText(source))) {
      const init = node.initializer;
      if (init && ts.isStringLiteral(init)) report(init, init.text);
      if (init && ts.isJsxExpression(init) && literal(init.expression)) report(init, literalText(init.expression));
    }
    // Objects handed to antd (menu items, options, columns, message.open): { label: 'Text' }.
    if (ts.isPropertyAssignment(node) && TEXT_PROPS.has(node.name.getText(source).replace(/['"]/g, '')) && literal(node.initializer)) {
      report(node.initializer, literalText(node.initializer));
    }
    // JSX children given as a literal expression: <span>{'Text'}</span>.
    if (ts.isJsxExpression(node) && node.parent && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent)) && literal(node.expression)) {
      report(node, literalText(node.expression));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('the app says nothing outside the catalogs (issue 20 §8)', () => {
  it('no JSX text or text prop in the components is a literal', () => {
    const files = sourceFiles(APP);
    expect(files.length).to.be.greaterThan(10);
    expect(files.flatMap((file) => untranslated(file))).to.deep.equal([]);
  });

  it('the scan finds literal JSX text, text props and { label } objects, and lets symbols and t(…) pass', () => {
    const sample = [
      '<Button title="Delete row" aria-label={t(\'model.delete\')}>Delete</Button>;',
      '<Input placeholder={`Search ${n}`} />;',
      "const items = [{ key: 1, label: 'Sign out' }, { key: 2, label: t('user.logout') }];",
      "<span>{'Total'} / … {count}</span>;",
      "<Tag>{t('model.yes')}</Tag>;",
    ].join('\n');
    expect(untranslated(join(APP, 'sample.tsx'), sample)).to.deep.equal([
      'sample.tsx:1 "Delete row"',
      'sample.tsx:1 "Delete"',
      'sample.tsx:2 "Search"',
      'sample.tsx:3 "Sign out"',
      'sample.tsx:4 "Total"',
    ]);
  });
});
