import { defineModel, type ModelDefinition } from '@fw/core';

/**
 * Demo models, one per switch of the power table, so each can be tried in the admin UI and
 * over the API. Titles, column titles and choice labels are given in English and Simplified
 * Chinese, the way a host model carries translations (issue 20 §8; docs/models.md).
 */

/** Everything on, including export and import; the ISBN cannot be edited in a table cell. */
export const Book = defineModel({
  name: 'Book',
  title: { en: 'Books', 'zh-CN': '图书' },
  table: 'demo_book',
  singularTitle: { en: 'Book', 'zh-CN': '图书' },
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: { en: 'Title', 'zh-CN': '书名' } }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 200 }] },
    isbn: {
      views: { title: 'ISBN' },
      // Looked up by ISBN (issue 21 §3: declared indexes are created at start-up).
      index: true,
      edit: { cellEdit: false },
      rules: [{ type: 'pattern', pattern: '^(97[89])?\\d{9}[\\dX]$', message: 'ISBN must be 10 or 13 digits' }],
    },
    genre: {
      views: { title: { en: 'Genre', 'zh-CN': '体裁' } },
      edit: {
        type: 'CHOICE',
        choices: [
          { value: 'novel', label: { en: 'Novel', 'zh-CN': '小说' } },
          { value: 'essay', label: { en: 'Essay', 'zh-CN': '散文' } },
          { value: 'poetry', label: { en: 'Poetry', 'zh-CN': '诗歌' } },
        ],
      },
    },
    price: { views: { title: { en: 'Price', 'zh-CN': '价格' } }, edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    published: { views: { title: { en: 'Published', 'zh-CN': '出版日期' } }, edit: { type: 'DATE' } },
    inPrint: { views: { title: { en: 'In print', 'zh-CN': '在印' } }, edit: { type: 'BOOLEAN', defaultValue: true } },
  },
  // The book list filtered by genre, newest first; and sorted by price.
  indexes: [
    ['genre', 'published'],
    ['price', 'id'],
  ],
});

/**
 * A tree: each category may sit under another. The admin UI shows it as an expandable tree table
 * (no cell editing there, spec rule 7) and picks a parent with a tree picker.
 */
export const Category = defineModel({
  name: 'Category',
  title: { en: 'Categories', 'zh-CN': '分类' },
  table: 'demo_category',
  singularTitle: { en: 'Category', 'zh-CN': '分类' },
  treeParentField: 'parentId',
  fields: {
    name: { views: { title: { en: 'Name', 'zh-CN': '名称' } }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 100 }] },
    parentId: {
      column: 'parent_id',
      views: { title: { en: 'Parent', 'zh-CN': '上级分类' } },
      edit: { type: 'REFERENCE_TREE', reference: { model: 'Category', labelField: 'name' } },
      // The tree table reads each node's children.
      index: true,
    },
  },
});

/**
 * Every other edit type in one model: references to a table (a book) and to a tree (a category),
 * a many-to-many collection of books, tags, several choices, long text, a point in time, a photo
 * (an image attachment, shown as a thumbnail in the table) and papers (up to five PDF or text files).
 */
export const Author = defineModel({
  name: 'Author',
  title: { en: 'Authors', 'zh-CN': '作者' },
  table: 'demo_author',
  singularTitle: { en: 'Author', 'zh-CN': '作者' },
  fields: {
    name: { views: { title: { en: 'Name', 'zh-CN': '名称' } }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 100 }] },
    bio: { views: { title: { en: 'Biography', 'zh-CN': '简介' }, show: false }, edit: { type: 'TEXTAREA' }, rules: [{ type: 'length', max: 2000 }] },
    born: { views: { title: { en: 'Born', 'zh-CN': '出生日期' } }, edit: { type: 'DATE' } },
    categoryId: {
      column: 'category_id',
      views: { title: { en: 'Category', 'zh-CN': '分类' } },
      edit: { type: 'REFERENCE_TREE', reference: { model: 'Category', labelField: 'name' } },
    },
    favouriteBookId: {
      column: 'favourite_book_id',
      views: { title: { en: 'Favourite book', 'zh-CN': '最喜欢的书' } },
      edit: { type: 'REFERENCE_TABLE', reference: { model: 'Book', labelField: 'title' } },
    },
    books: {
      views: { title: { en: 'Books', 'zh-CN': '图书' } },
      edit: { type: 'COLLECTION', collection: { model: 'Book', joinTable: 'demo_author_book', ownKey: 'author_id', foreignKey: 'book_id', labelField: 'title' } },
    },
    languages: { views: { title: { en: 'Languages', 'zh-CN': '语言' } }, edit: { type: 'TAGS' } },
    prizes: {
      views: { title: { en: 'Prizes', 'zh-CN': '奖项' } },
      edit: {
        type: 'MULTI_CHOICE',
        choices: [
          { value: 'hugo', label: { en: 'Hugo', 'zh-CN': '雨果奖' } },
          { value: 'nebula', label: { en: 'Nebula', 'zh-CN': '星云奖' } },
          { value: 'booker', label: { en: 'Booker', 'zh-CN': '布克奖' } },
        ],
      },
    },
    lastSeen: { column: 'last_seen', views: { title: { en: 'Last seen', 'zh-CN': '最近活动' } }, edit: { type: 'DATETIME' }, index: true },
    photo: { views: { title: { en: 'Photo', 'zh-CN': '照片' } }, edit: { type: 'ATTACHMENT', attachment: { image: true, maxSize: 2 * 1024 * 1024 } } },
    papers: {
      views: { title: { en: 'Papers', 'zh-CN': '文稿' }, show: false },
      edit: { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 5, accept: ['application/pdf', '.txt', '.md'] } },
    },
  },
});

/**
 * Kept away from AI tools: `ai: false` holds for administrators too. Not printable either
 * (`print: false` removes the row's print entry, spec rule 8).
 */
export const Salary = defineModel({
  name: 'Salary',
  title: { en: 'Salaries', 'zh-CN': '薪资' },
  table: 'demo_salary',
  singularTitle: { en: 'Salary', 'zh-CN': '薪资' },
  power: { ai: false, print: false },
  fields: {
    employee: { views: { title: { en: 'Employee', 'zh-CN': '员工' } }, edit: { notNull: true } },
    amount: { views: { title: { en: 'Amount', 'zh-CN': '金额' } }, edit: { type: 'NUMBER', notNull: true }, rules: [{ type: 'range', min: 0 }] },
  },
});

/** No in-table cell editing on the whole model; the edit form still works. */
export const Contract = defineModel({
  name: 'Contract',
  title: { en: 'Contracts', 'zh-CN': '合同' },
  table: 'demo_contract',
  singularTitle: { en: 'Contract', 'zh-CN': '合同' },
  power: { cellEdit: false },
  fields: {
    party: { views: { title: { en: 'Party', 'zh-CN': '签约方' } }, edit: { notNull: true } },
    signedOn: { views: { title: { en: 'Signed on', 'zh-CN': '签订日期' } }, edit: { type: 'DATE' } },
  },
});

/** A cross-field invariant: a project cannot end before it starts, whichever cell is edited. */
export const Project = defineModel({
  name: 'Project',
  title: { en: 'Projects', 'zh-CN': '项目' },
  table: 'demo_project',
  singularTitle: { en: 'Project', 'zh-CN': '项目' },
  fields: {
    name: { views: { title: { en: 'Name', 'zh-CN': '名称' } }, edit: { notNull: true } },
    startDate: { views: { title: { en: 'Start', 'zh-CN': '开始日期' } }, edit: { type: 'DATE', notNull: true } },
    endDate: { views: { title: { en: 'End', 'zh-CN': '结束日期' } }, edit: { type: 'DATE' } },
    budget: {
      views: { title: { en: 'Budget', 'zh-CN': '预算' } },
      edit: { type: 'NUMBER' },
      rules: [
        {
          type: 'dynamic',
          name: 'budgetNeedsEnd',
          dependsOn: ['endDate'],
          test: (value, row) => value === null || value === undefined || row.endDate != null || 'a budget needs an end date',
        },
      ],
    },
  },
  rowRules: [
    {
      name: 'endAfterStart',
      fields: ['startDate', 'endDate'],
      path: 'endDate',
      test: (row) => row.endDate == null || row.startDate == null || String(row.endDate) >= String(row.startDate),
      message: 'the end date must not be before the start date',
    },
  ],
});

/**
 * Row visibility by owner (a user sees only their own tasks, administrators see all), and a
 * power handler: nobody deletes through the API on weekends... here simply: only administrators
 * may delete tasks.
 */
export const Task = defineModel({
  name: 'Task',
  title: { en: 'Tasks', 'zh-CN': '任务' },
  table: 'demo_task',
  singularTitle: { en: 'Task', 'zh-CN': '任务' },
  power: {
    powerHandler: (power, { user }) => {
      if (!user.isAdmin) power.delete = false;
    },
  },
  fields: {
    subject: { views: { title: { en: 'Subject', 'zh-CN': '事项' } }, edit: { notNull: true } },
    done: { views: { title: { en: 'Done', 'zh-CN': '已完成' } }, edit: { type: 'BOOLEAN', defaultValue: false } },
    ownerId: { views: { title: { en: 'Owner', 'zh-CN': '负责人' }, show: false }, edit: { type: 'HIDDEN', readonly: true, cellEdit: false, integer: true } },
  },
  // Every read of a non-administrator filters on the owner (beforeFetch below), paged by id.
  indexes: [['ownerId', 'id']],
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
  },
});

/** Every demo model, in menu order. */
export const demoModels: ModelDefinition[] = [Book, Author, Category, Salary, Contract, Project, Task];
