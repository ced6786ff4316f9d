import { expect } from 'chai';
import { FW_LOCALES, FwDefinitionError, defineModel, localizedText, type ModelDefinitionInput } from '@fw/core';

// Issue 20 §8: host models carry titles per language; the definition checks them at start-up.
function setup(overrides: Partial<ModelDefinitionInput> = {}): ModelDefinitionInput {
  return {
    name: 'Book',
    title: { en: 'Books', 'zh-CN': '图书' },
    fields: {
      name: { views: { title: { en: 'Title', 'zh-CN': '书名', de: 'Titel' } } },
      price: { edit: { type: 'NUMBER', title: { en: 'Price', 'zh-CN': '价格' } } },
      status: {
        edit: {
          type: 'CHOICE',
          choices: [
            { value: 'draft', label: { en: 'Draft', 'zh-CN': '草稿' } },
            { value: 'out', label: 'Out of print' },
          ],
        },
      },
    },
    ...overrides,
  };
}

function definitionError(fn: () => unknown): FwDefinitionError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(FwDefinitionError);
    return error as FwDefinitionError;
  }
  throw new Error('expected a definition error');
}

describe('defineModel: titles per language', () => {
  it('keeps the English text as the plain title and the translations beside it', () => {
    const model = defineModel(setup());
    expect(model.title).to.equal('Books');
    expect(model.titles).to.deep.equal({ en: 'Books', 'zh-CN': '图书' });
    expect(model.fields.name!.views).to.include({ title: 'Title' });
    expect(model.fields.name!.views.titles).to.deep.equal({ en: 'Title', 'zh-CN': '书名', de: 'Titel' });
    // The form label falls back to the field name: only the column was translated.
    expect(model.fields.name!.edit.title).to.equal('name');
    expect(model.fields.name!.edit.titles).to.equal(undefined);
    // A column without its own title shows the form's, translations included.
    expect(model.fields.price!.views.title).to.equal('Price');
    expect(model.fields.price!.views.titles).to.deep.equal({ en: 'Price', 'zh-CN': '价格' });
    expect(model.fields.status!.edit.choices).to.deep.equal([
      { value: 'draft', label: 'Draft', labels: { en: 'Draft', 'zh-CN': '草稿' } },
      { value: 'out', label: 'Out of print' },
    ]);
    expect(Object.isFrozen(model.titles)).to.equal(true);
  });

  it('takes the first text as the plain one when English is missing', () => {
    const model = defineModel(setup({ title: { 'zh-CN': '图书', ja: '本' } }));
    expect(model.title).to.equal('图书');
  });

  it('plain string titles carry no translations', () => {
    const model = defineModel(setup({ title: 'Books' }));
    expect(model).to.not.have.property('titles');
  });

  const cases: Array<[string, Partial<ModelDefinitionInput>, string]> = [
    ['an unknown language', { title: { en: 'Books', klingon: 'x' } as never }, 'Book.title.klingon'],
    ['an empty translation', { title: { en: 'Books', 'zh-CN': '' } }, 'Book.title.zh-CN'],
    ['no language at all', { title: {} }, 'Book.title'],
    ['an empty plain title', { title: '' }, 'Book.title'],
    ['a non-string translation', { title: { en: 7 } as never }, 'Book.title.en'],
    ['an unknown language on a column', { fields: { a: { views: { title: { EN: 'A' } as never } } } }, 'Book.fields.a.views.title.EN'],
    ['an empty form label', { fields: { a: { edit: { title: { de: '' } } } } }, 'Book.fields.a.edit.title.de'],
    [
      'an unknown language on a choice',
      { fields: { a: { edit: { type: 'CHOICE', choices: [{ value: 1, label: { zh: '一' } as never }] } } } },
      'Book.fields.a.edit.choices[0].label.zh',
    ],
    ['an empty choice label', { fields: { a: { edit: { type: 'CHOICE', choices: [{ value: 1, label: '' }] } } } }, 'Book.fields.a.edit.choices[0].label'],
  ];
  for (const [what, overrides, key] of cases) {
    it(`refuses ${what}, naming ${key}`, () => {
      const error = definitionError(() => defineModel(setup(overrides)));
      expect(error.key).to.equal(key);
    });
  }
});

describe('localizedText(translations, locale, fallback)', () => {
  it('picks the language, else English, else the first', () => {
    const titles = { 'zh-CN': '图书', en: 'Books' };
    expect(localizedText(titles, 'zh-CN', 'x')).to.equal('图书');
    expect(localizedText(titles, 'fr', 'x')).to.equal('Books');
    expect(localizedText({ ja: '本', de: 'Bücher' }, 'fr', 'x')).to.equal('本');
    expect(localizedText(undefined, 'fr', 'Books')).to.equal('Books');
  });

  it('knows the six languages of the UI', () => {
    expect([...FW_LOCALES]).to.deep.equal(['en', 'zh-CN', 'ja', 'de', 'fr', 'es']);
  });
});
