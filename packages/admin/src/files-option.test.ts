import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { FwDefinitionError, defineModel } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { createTestDatabase } from '@fw/test-utils';
import { fwAdmin } from './fw-admin.js';

const Album = defineModel({
  name: 'Album',
  table: 'adm_album',
  fields: { title: { edit: { notNull: true } }, cover: { edit: { type: 'ATTACHMENT', attachment: { image: true } } } },
});
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('fwAdmin(app, { files })', () => {
  it('refuses a files option that is neither a storage nor { dir } (before opening anything)', async () => {
    for (const files of [{}, { dir: '' }, 'data/files', { put: () => undefined }]) {
      const error = await fwAdmin(new Koa(), { db: 'sqlite::memory:', models: [Album], files: files as never }).catch((e: unknown) => e);
      expect(error, JSON.stringify(files)).to.be.instanceOf(FwDefinitionError);
      expect((error as Error).message).to.contain('fwAdmin.files');
    }
  });

  it('stores uploads in the folder of { dir }, and the purge timer removes pending uploads older than a day', async () => {
    const db = await createTestDatabase({ dialect: 'sqlite', label: 'SQLite' });
    const dir = mkdtempSync(join(tmpdir(), 'fw-admin-files-'));
    const app = new Koa();
    app.silent = true;
    const errors: unknown[] = [];
    app.on('error', (e) => errors.push(e));
    const fw = await fwAdmin(app, { db: db.url, models: [Album], files: { dir: join(dir, 'uploads') }, purgeIntervalMs: 50, ui: false, ai: false });
    try {
      app.use(fw.middleware);
      await fw.store.users.create({ account: 'admin', password: 'admin-pass-1', isAdmin: true, mustChangePassword: false });
      const agent = request(app.callback());
      const token = (
        await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('admin-pass-1') })
          .expect(200)
      ).body.token as string;
      const uploaded = await agent.post('/fw-api/data/upload/Album/cover').set('token', token).attach('file', PNG, 'cover.png').expect(200);
      const [file] = uploaded.body.files as Array<{ id: string }>;
      expect(readdirSync(join(dir, 'uploads'))).to.deep.equal([file!.id]);
      await fw.store
        .knex('fw_file')
        .where('id', file!.id)
        .update({ created_at: new Date(Date.now() - 25 * 3600_000) });
      for (let i = 0; i < 100 && existsSync(join(dir, 'uploads', file!.id)); i++) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(join(dir, 'uploads', file!.id)), 'purged by the timer').to.equal(false);
      expect(await fw.store.files.findMany([file!.id])).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    } finally {
      await fw.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
