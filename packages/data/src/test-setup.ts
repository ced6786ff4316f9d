// Shared fixture of the data-API tests: a real Koa app with fwData over a real database.
import Koa from 'koa';
import request from 'supertest';
import { BUILTIN_MODELS, FwError, createRegistry, defineModel, type FwUser, type ModelRegistry } from '@fw/core';
import { createStore, type FwStore } from '@fw/store';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData, type FwDataMiddleware, type FwDataOptions } from './http/router.js';

export const Tag = defineModel({ name: 'Tag', table: 't_tag', fields: { label: { edit: { notNull: true } } } });

export const Book = defineModel({
  name: 'Book',
  table: 't_book',
  power: { export: true, importable: true },
  fields: {
    title: { views: { title: 'Title' }, edit: { notNull: true }, rules: [{ type: 'length', max: 200 }] },
    isbn: { edit: { cellEdit: false }, rules: [{ type: 'pattern', pattern: '^\\d{10}(\\d{3})?$', message: 'ISBN must be 10 or 13 digits' }] },
    genre: { edit: { type: 'CHOICE', choices: [{ value: 'novel', label: 'Novel' }, { value: 'essay', label: 'Essay' }] } },
    price: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 10000 }] },
    published: { edit: { type: 'DATE' } },
    inPrint: { edit: { type: 'BOOLEAN', defaultValue: true } },
    code: { edit: { readonly: true } },
    secret: { edit: { type: 'PASSWORD' } },
    tags: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 't_book_tag', ownKey: 'book_id', foreignKey: 'tag_id' } } },
  },
});

/** Rows visible to their owner only (administrators see all); `afterFetch` decorates the subject. */
export const Note = defineModel({
  name: 'Note',
  table: 't_note',
  fields: {
    subject: { edit: { notNull: true } },
    ownerId: { edit: { type: 'HIDDEN', readonly: true, integer: true } },
    startDate: { edit: { type: 'DATE' } },
    endDate: { edit: { type: 'DATE' } },
  },
  rowRules: [{ name: 'endAfterStart', fields: ['startDate', 'endDate'], path: 'endDate', test: (r) => r.endDate == null || r.startDate == null || String(r.endDate) >= String(r.startDate), message: 'end before start' }],
  dataProxy: {
    beforeFetch: ({ user }) => (user.isAdmin ? [] : [{ field: 'ownerId', op: 'eq', value: user.id }]),
    beforeAdd: (row, { user }) => {
      row.ownerId = user.id;
    },
  },
});

/** A power handler takes delete away from everyone but administrators. */
export const Ledger = defineModel({
  name: 'Ledger',
  table: 't_ledger',
  power: {
    powerHandler: (power, { user }) => {
      if (!user.isAdmin) power.delete = false;
    },
  },
  fields: { entry: { edit: { notNull: true } } },
});

/** Hook calls of {@link Plan}, in order; tests clear it. */
export const planCalls: Array<{ hook: string; row: Record<string, unknown> }> = [];

/**
 * The cell-edit workhorse: a cross-field invariant, a dynamic rule reading another field, a field
 * closed to cell editing, a read-only field, a collection, and hooks that record what they see.
 * `afterUpdate` refuses the name 'boom' (to test the rollback).
 */
export const Plan = defineModel({
  name: 'Plan',
  table: 't_plan',
  fields: {
    name: { edit: { notNull: true }, rules: [{ type: 'length', max: 50 }] },
    note: {},
    startDate: { edit: { type: 'DATE', notNull: true } },
    endDate: { edit: { type: 'DATE' } },
    budget: {
      edit: { type: 'NUMBER' },
      rules: [{ type: 'dynamic', name: 'budgetNeedsEnd', dependsOn: ['endDate'], test: (v, row) => v === null || v === undefined || row.endDate != null || 'a budget needs an end date' }],
    },
    secretCode: { edit: { cellEdit: false } },
    ref: { edit: { readonly: true } },
    tags: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 't_plan_tag', ownKey: 'plan_id', foreignKey: 'tag_id' } } },
  },
  rowRules: [{ name: 'endAfterStart', fields: ['startDate', 'endDate'], path: 'endDate', test: (r) => r.endDate == null || String(r.endDate) >= String(r.startDate), message: 'the end must not be before the start' }],
  dataProxy: {
    beforeUpdate: (row) => {
      planCalls.push({ hook: 'beforeUpdate', row: structuredClone(row) });
    },
    afterUpdate: (row) => {
      planCalls.push({ hook: 'afterUpdate', row: structuredClone(row) });
      if (row.name === 'boom') throw new FwError('CONFLICT', 'afterUpdate refused boom');
    },
  },
});

/** A model closed to cell editing as a whole. */
export const Frozen = defineModel({ name: 'Frozen', table: 't_frozen', power: { cellEdit: false }, fields: { label: {} } });

/** A fresh registry of the test models and the built-in ones. */
export function testRegistry(): ModelRegistry {
  return createRegistry([...BUILTIN_MODELS, Tag, Book, Note, Ledger, Plan, Frozen]);
}

/** What {@link setupData} builds. */
export interface DataFixture {
  store: FwStore;
  registry: ModelRegistry;
  tokens: FwTokenService;
  data: FwDataMiddleware;
  app: Koa;
  agent: ReturnType<typeof request>;
  users: Record<'admin' | 'alice' | 'bob' | 'carol', FwUser>;
  /** A fresh token of that user. */
  token(user: keyof DataFixture['users']): Promise<string>;
  /** Every row of a model table, straight from the database. */
  rows(table: string): Promise<Array<Record<string, unknown>>>;
  roles: { editor: number; reader: number };
  destroy(): Promise<void>;
}

/**
 * Migrates the database at `url`, creates the test model tables and menus, and the users:
 * `admin` (administrator), `alice` (role editor: every Book, Note, Tag and Ledger menu), `bob`
 * (role reader: the Book and Note model menus only, so query but nothing else) and `carol` (no role).
 */
export async function setupData(url: string, options: Partial<FwDataOptions> = {}): Promise<DataFixture> {
  const store = createStore(url);
  await store.migrate.latest();
  const registry = testRegistry();
  await store.createModelTables(registry.list());
  const menus: Record<string, number[]> = {};
  for (const model of registry.list()) {
    const { menu, functions } = await store.menus.createModelMenu(model);
    menus[model.name] = [menu.id, ...functions.map((f) => f.id)];
  }
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const make = async (account: string, isAdmin = false) => {
    const row = await store.users.create({ account: `${account}-${stamp}`, name: account, password: 'x-password-1', isAdmin, mustChangePassword: false });
    return { id: row.id, account: row.account, name: row.name, isAdmin };
  };
  const users = { admin: await make('admin', true), alice: await make('alice'), bob: await make('bob'), carol: await make('carol') };
  const editor = await store.roles.create({ code: `editor-${stamp}`, name: 'Editor' });
  const reader = await store.roles.create({ code: `reader-${stamp}`, name: 'Reader' });
  await store.roles.setMenus(editor.id, [...menus.Book!, ...menus.Note!, ...menus.Tag!, ...menus.Ledger!, ...menus.Plan!, ...menus.Frozen!]);
  await store.roles.setMenus(reader.id, [menus.Book![0]!, menus.Note![0]!]);
  await store.users.setRoles(users.alice.id, [editor.id]);
  await store.users.setRoles(users.bob.id, [reader.id]);

  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  const data = fwData({ store, tokens, registry, onBackgroundError: (e) => { throw e; }, ...options });
  const app = new Koa();
  app.silent = true;
  app.use(data);
  return {
    store,
    registry,
    tokens,
    data,
    app,
    agent: request(app.callback()),
    users,
    roles: { editor: editor.id, reader: reader.id },
    async token(user) {
      return (await tokens.loginToken(users[user], tokens.generateToken())).token;
    },
    rows: (table) => store.knex(table).select('*').orderBy('id'),
    destroy: () => store.destroy(),
  };
}
