// Migration 0001_builtin_tables: users, roles, organisations, menus and the tables that link them.
import type { FwMigration } from './migration-type.js';
import { datetime, timestamps, createTable, joinTable, dropAll } from './tables.js';

export const builtinTables: FwMigration = {
  name: '0001_builtin_tables',
  up(knex) {
    let s = knex.schema;
    s = createTable(knex, s, 'fw_user', (t) => {
      t.increments('id');
      t.string('account', 64).notNullable().unique();
      t.string('name', 128).nullable();
      // Null hash: no local password (directory or sign-on users).
      t.string('password_hash', 128).nullable();
      t.string('password_salt', 64).nullable();
      t.boolean('is_admin').notNullable().defaultTo(false);
      t.string('status', 16).notNullable().defaultTo('normal');
      datetime(t, 'expire_date').nullable();
      t.string('white_ip', 1024).nullable();
      datetime(t, 'reset_pwd_time').nullable();
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_role', (t) => {
      t.increments('id');
      t.string('code', 64).notNullable().unique();
      t.string('name', 128).notNullable();
      t.string('status', 16).notNullable().defaultTo('normal');
      t.string('remark', 512).nullable();
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_user_role', ['user_id', 'fw_user'], ['role_id', 'fw_role']);
    s = createTable(knex, s, 'fw_org', (t) => {
      t.increments('id');
      t.string('code', 64).nullable().unique();
      t.string('name', 128).notNullable();
      t.integer('parent_id').unsigned().nullable().index();
      t.integer('sort').notNullable().defaultTo(0);
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_user_org', ['user_id', 'fw_user'], ['org_id', 'fw_org']);
    s = createTable(knex, s, 'fw_menu', (t) => {
      t.increments('id');
      t.string('code', 128).nullable().unique();
      t.string('name', 128).notNullable();
      t.string('type', 16).notNullable();
      t.string('value', 255).nullable();
      t.string('icon', 64).nullable();
      t.integer('parent_id').unsigned().nullable().index();
      t.integer('sort').notNullable().defaultTo(0);
      t.string('status', 16).notNullable().defaultTo('open');
      timestamps(knex, t);
    });
    s = joinTable(knex, s, 'fw_role_menu', ['role_id', 'fw_role'], ['menu_id', 'fw_menu']);
    return s;
  },
  down(knex) {
    return dropAll(knex, ['fw_user', 'fw_role', 'fw_user_role', 'fw_org', 'fw_user_org', 'fw_menu', 'fw_role_menu']);
  },
};
