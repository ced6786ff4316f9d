import { defineModel, type ModelDefinition } from '@fw/core';

/**
 * Demo models, one per switch of the power table, so each can be tried in the admin UI and
 * over the API.
 */

/** Everything on, including export and import; the ISBN cannot be edited in a table cell. */
export const Book = defineModel({
  name: 'Book',
  title: 'Books',
  table: 'demo_book',
  singularTitle: 'Book',
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 200 }] },
    isbn: {
      views: { title: 'ISBN' },
      edit: { cellEdit: false },
      rules: [{ type: 'pattern', pattern: '^(97[89])?\\d{9}[\\dX]$', message: 'ISBN must be 10 or 13 digits' }],
    },
    genre: {
      views: { title: 'Genre' },
      edit: {
        type: 'CHOICE',
        choices: [
          { value: 'novel', label: 'Novel' },
          { value: 'essay', label: 'Essay' },
          { value: 'poetry', label: 'Poetry' },
        ],
      },
    },
    price: { views: { title: 'Price' }, edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    published: { views: { title: 'Published' }, edit: { type: 'DATE' } },
    inPrint: { views: { title: 'In print' }, edit: { type: 'BOOLEAN', defaultValue: true } },
  },
});

/**
 * A tree: each category may sit under another. The admin UI shows it as an expandable tree table
 * (no cell editing there, spec rule 7) and picks a parent with a tree picker.
 */
export const Category = defineModel({
  name: 'Category',
  title: 'Categories',
  table: 'demo_category',
  singularTitle: 'Category',
  treeParentField: 'parentId',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 100 }] },
    parentId: { column: 'parent_id', views: { title: 'Parent' }, edit: { type: 'REFERENCE_TREE', reference: { model: 'Category', labelField: 'name' } } },
  },
});

/**
 * Every other edit type in one model: references to a table (a book) and to a tree (a category),
 * a many-to-many collection of books, tags, several choices, long text, a point in time, a photo
 * (an image attachment, shown as a thumbnail in the table) and papers (up to five PDF or text files).
 */
export const Author = defineModel({
  name: 'Author',
  title: 'Authors',
  table: 'demo_author',
  singularTitle: 'Author',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true }, rules: [{ type: 'length', min: 1, max: 100 }] },
    bio: { views: { title: 'Biography', show: false }, edit: { type: 'TEXTAREA' }, rules: [{ type: 'length', max: 2000 }] },
    born: { views: { title: 'Born' }, edit: { type: 'DATE' } },
    categoryId: { column: 'category_id', views: { title: 'Category' }, edit: { type: 'REFERENCE_TREE', reference: { model: 'Category', labelField: 'name' } } },
    favouriteBookId: { column: 'favourite_book_id', views: { title: 'Favourite book' }, edit: { type: 'REFERENCE_TABLE', reference: { model: 'Book', labelField: 'title' } } },
    books: {
      views: { title: 'Books' },
      edit: { type: 'COLLECTION', collection: { model: 'Book', joinTable: 'demo_author_book', ownKey: 'author_id', foreignKey: 'book_id', labelField: 'title' } },
    },
    languages: { views: { title: 'Languages' }, edit: { type: 'TAGS' } },
    prizes: {
      views: { title: 'Prizes' },
      edit: {
        type: 'MULTI_CHOICE',
        choices: [
          { value: 'hugo', label: 'Hugo' },
          { value: 'nebula', label: 'Nebula' },
          { value: 'booker', label: 'Booker' },
        ],
      },
    },
    lastSeen: { column: 'last_seen', views: { title: 'Last seen' }, edit: { type: 'DATETIME' } },
    photo: { views: { title: 'Photo' }, edit: { type: 'ATTACHMENT', attachment: { image: true, maxSize: 2 * 1024 * 1024 } } },
    papers: {
      views: { title: 'Papers', show: false },
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
  title: 'Salaries',
  table: 'demo_salary',
  singularTitle: 'Salary',
  power: { ai: false, print: false },
  fields: {
    employee: { views: { title: 'Employee' }, edit: { notNull: true } },
    amount: { views: { title: 'Amount' }, edit: { type: 'NUMBER', notNull: true }, rules: [{ type: 'range', min: 0 }] },
  },
});

/** No in-table cell editing on the whole model; the edit form still works. */
export const Contract = defineModel({
  name: 'Contract',
  title: 'Contracts',
  table: 'demo_contract',
  singularTitle: 'Contract',
  power: { cellEdit: false },
  fields: {
    party: { views: { title: 'Party' }, edit: { notNull: true } },
    signedOn: { views: { title: 'Signed on' }, edit: { type: 'DATE' } },
  },
});

/** A cross-field invariant: a project cannot end before it starts, whichever cell is edited. */
export const Project = defineModel({
  name: 'Project',
  title: 'Projects',
  table: 'demo_project',
  singularTitle: 'Project',
  fields: {
    name: { views: { title: 'Name' }, edit: { notNull: true } },
    startDate: { views: { title: 'Start' }, edit: { type: 'DATE', notNull: true } },
    endDate: { views: { title: 'End' }, edit: { type: 'DATE' } },
    budget: {
      views: { title: 'Budget' },
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
  title: 'Tasks',
  table: 'demo_task',
  singularTitle: 'Task',
  power: {
    powerHandler: (power, { user }) => {
      if (!user.isAdmin) power.delete = false;
    },
  },
  fields: {
    subject: { views: { title: 'Subject' }, edit: { notNull: true } },
    done: { views: { title: 'Done' }, edit: { type: 'BOOLEAN', defaultValue: false } },
    ownerId: { views: { title: 'Owner', show: false }, edit: { type: 'HIDDEN', readonly: true, cellEdit: false, integer: true } },
  },
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
  },
});

/** Every demo model, in menu order. */
export const demoModels: ModelDefinition[] = [Book, Author, Category, Salary, Contract, Project, Task];
