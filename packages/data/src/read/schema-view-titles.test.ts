import { expect } from 'chai';
import { createRegistry, defineModel } from '@fw/core';
import { modelView } from './schema-view.js';

// Issue 20 §8: the build schema carries a host model's titles per language, for the UI to pick.
describe('modelView(model, registry): titles per language', () => {
  it('passes model, column, form and choice translations through, and nothing for plain titles', () => {
    const Book = defineModel({
      name: 'Book',
      title: { en: 'Books', 'zh-CN': '图书' },
      fields: {
        name: { views: { title: { en: 'Title', 'zh-CN': '书名' } } },
        status: { edit: { type: 'CHOICE', title: 'Status', choices: [{ value: 'draft', label: { en: 'Draft', 'zh-CN': '草稿' } }, { value: 'out' }] } },
      },
    });
    const view = modelView(Book, createRegistry([Book]));
    expect(view).to.include({ title: 'Books' });
    expect(view.titles).to.deep.equal({ en: 'Books', 'zh-CN': '图书' });
    const [name, status] = view.fields;
    expect(name!.views).to.deep.equal({ title: 'Title', titles: { en: 'Title', 'zh-CN': '书名' }, show: true, sortable: true });
    expect(status).to.not.have.property('titles');
    expect(status!.choices).to.deep.equal([
      { value: 'draft', label: 'Draft', labels: { en: 'Draft', 'zh-CN': '草稿' } },
      { value: 'out', label: 'out' },
    ]);
    // JSON as the route sends it.
    expect(JSON.parse(JSON.stringify(view)).titles['zh-CN']).to.equal('图书');
  });
});
