// Migration 0007_ai_config: configuration rows of the AI features.
import type { FwMigration } from './migration-type.js';
import { timestamps, createTable, dropAll } from './tables.js';

export const aiConfig: FwMigration = {
  name: '0007_ai_config',
  up(knex) {
    // Plain configuration rows for AI features: language models, embedding models, agents and
    // BI data sources. Keys and connection strings are kept as written (the server needs them
    // back) and are never returned by the data API.
    let s = createTable(knex, knex.schema, 'fw_llm', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('provider', 64).nullable();
      t.string('api_domain', 255).notNullable();
      t.string('api_key', 512).nullable();
      t.string('model', 128).nullable();
      t.boolean('enabled').notNullable().defaultTo(true);
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_embedding_model', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('api_domain', 255).notNullable();
      t.string('api_key', 512).nullable();
      t.string('model', 128).nullable();
      t.integer('dimensions').nullable();
      timestamps(knex, t);
    });
    s = createTable(knex, s, 'fw_agent', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('url', 512).notNullable();
      t.string('description', 1024).nullable();
      t.boolean('enabled').notNullable().defaultTo(true);
      timestamps(knex, t);
    });
    return createTable(knex, s, 'fw_bi_datasource', (t) => {
      t.increments('id');
      t.string('name', 128).notNullable();
      t.string('dialect', 32).nullable();
      t.string('connection_string', 1024).notNullable();
      timestamps(knex, t);
    });
  },
  down(knex) {
    return dropAll(knex, ['fw_bi_datasource', 'fw_agent', 'fw_embedding_model', 'fw_llm']);
  },
};
