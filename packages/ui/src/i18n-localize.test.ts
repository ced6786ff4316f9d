import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 20 §8: how the UI puts the server's titles into the user's language (pure functions of
// packages/ui/app/src/i18n, loaded by path: the app has its own tsconfig).
const I18N = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'i18n');
const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(join(I18N, file)).href)) as T;

type Titles = Record<string, string>;
interface Field {
  name: string;
  title: string;
  titles?: Titles;
  views: { title: string; titles?: Titles; show: boolean; sortable: boolean };
  choices?: Array<{ value: string; label: string; labels?: Titles }>;
}
interface Build {
  model: { name: string; title: string; titles?: Titles; fields: Field[] };
  power: Record<string, boolean>;
}
interface Menu {
  id: number;
  code: string | null;
  name: string;
  titles?: Titles;
  type: string;
  value: string | null;
}
interface Localize {
  localizeBuild(build: Build, locale: string, models: Titles): Build;
  localizeMenus(menus: Menu[], locale: string, english: Titles, models: Titles): Menu[];
  pickTitle(titles: Titles | undefined, locale: string, fallback: string): string;
}

const field = (name: string, title: string, extra: Partial<Field> = {}): Field => ({ name, title, views: { title, show: true, sortable: true }, ...extra });

async function setup() {
  const { localizeBuild, localizeMenus, pickTitle } = await load<Localize>('localize.ts');
  const { matchLocale } = await load<{ matchLocale(tags: string[]): string }>('locales.ts');
  const { modelsEn } = await load<{ modelsEn: Titles }>('models/en.ts');
  const { modelsZhCN } = await load<{ modelsZhCN: Titles }>('models/zh-CN.ts');
  const { modelsDe } = await load<{ modelsDe: Titles }>('models/de.ts');
  return { localizeBuild, localizeMenus, pickTitle, matchLocale, modelsEn, modelsZhCN, modelsDe };
}

describe('i18n/localize: server titles in the user language', () => {
  it('a built-in model takes its title, column and form titles and choice labels from the model catalog', async () => {
    const { localizeBuild, modelsZhCN } = await setup();
    const build: Build = {
      model: {
        name: 'FwUser',
        title: 'Users',
        fields: [
          field('account', 'account', { views: { title: 'Account', show: true, sortable: true } }),
          field('status', 'status', { choices: [{ value: 'locked', label: 'Locked' }] }),
        ],
      },
      power: { query: true },
    };
    const zh = localizeBuild(build, 'zh-CN', modelsZhCN);
    expect(zh.model.title).to.equal('用户');
    expect(zh.model.fields[0]).to.deep.include({ title: '账号' });
    expect(zh.model.fields[0]!.views.title).to.equal('账号');
    expect(zh.model.fields[1]!.choices).to.deep.equal([{ value: 'locked', label: '已锁定' }]);
    expect(zh.power).to.equal(build.power);
    // The answer in the cache is not changed.
    expect(build.model.title).to.equal('Users');
  });

  it("a host model picks its declared titles: the user's language, else English, else the first; plain titles stay", async () => {
    const { localizeBuild, modelsDe, modelsZhCN } = await setup();
    const build: Build = {
      model: {
        name: 'Book',
        title: 'Books',
        titles: { en: 'Books', 'zh-CN': '图书' },
        fields: [
          field('title', 'title', { views: { title: 'Title', titles: { en: 'Title', 'zh-CN': '书名' }, show: true, sortable: true } }),
          field('genre', 'Genre', {
            titles: { 'zh-CN': '体裁', ja: 'ジャンル' },
            choices: [
              { value: 'novel', label: 'Novel', labels: { en: 'Novel', 'zh-CN': '小说' } },
              { value: 'x', label: 'X' },
            ],
          }),
          field('isbn', 'ISBN'),
        ],
      },
      power: {},
    };
    const zh = localizeBuild(build, 'zh-CN', modelsZhCN);
    expect(zh.model.title).to.equal('图书');
    expect(zh.model.fields.map((f) => f.views.title)).to.deep.equal(['书名', 'Genre', 'ISBN']);
    expect(zh.model.fields[1]!.title).to.equal('体裁');
    expect(zh.model.fields[1]!.choices!.map((c) => c.label)).to.deep.equal(['小说', 'X']);
    const de = localizeBuild(build, 'de', modelsDe);
    expect(de.model.title).to.equal('Books');
    expect(de.model.fields[0]!.views.title).to.equal('Title');
    // No English: the first declared.
    expect(de.model.fields[1]!.title).to.equal('体裁');
  });

  it("menus: Fw's names translated, a host model's menu from its titles, a renamed menu left as named", async () => {
    const { localizeMenus, modelsEn, modelsZhCN } = await setup();
    const menus: Menu[] = [
      { id: 1, code: 'FwUser', name: 'Users', type: 'table', value: 'FwUser' },
      { id: 2, code: 'FwUser@ADD', name: 'Add', type: 'function', value: null },
      { id: 3, code: 'FwRole', name: 'People in charge', type: 'table', value: 'FwRole' },
      { id: 4, code: 'Book', name: 'Books', titles: { en: 'Books', 'zh-CN': '图书' }, type: 'table', value: 'Book' },
      { id: 5, code: null, name: 'Help', type: 'dir', value: null },
    ];
    expect(localizeMenus(menus, 'zh-CN', modelsEn, modelsZhCN).map((m) => m.name)).to.deep.equal(['用户', '新增', 'People in charge', '图书', 'Help']);
    expect(localizeMenus(menus, 'en', modelsEn, modelsEn).map((m) => m.name)).to.deep.equal(['Users', 'Add', 'People in charge', 'Books', 'Help']);
  });

  it("the browser's languages choose the first language", async () => {
    const { matchLocale } = await setup();
    expect(matchLocale(['de-AT', 'en'])).to.equal('de');
    expect(matchLocale(['pt-BR', 'fr'])).to.equal('fr');
    expect(matchLocale(['zh-TW'])).to.equal('zh-CN');
    expect(matchLocale(['ZH-cn'])).to.equal('zh-CN');
    expect(matchLocale(['ja-JP'])).to.equal('ja');
    expect(matchLocale(['es-419'])).to.equal('es');
    expect(matchLocale(['pt-BR'])).to.equal('en');
    expect(matchLocale([])).to.equal('en');
  });
});
