import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { EditType, type ModelDefinition } from '@fw/core';
import { encodePassword } from '@fw/login/client';
import { describeEachSql } from '@fw/test-utils';
import { createDemoApp } from './app.js';
import { openApiChecker } from './openapi-check.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
// A 1×1 PNG.
// The smallest file a PDF sniffer recognises.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

// Values for fields whose rules a plain generated value would break.
const OVERRIDES: Record<string, (n: number) => unknown> = {
  'Book.isbn': (n) => `04411727${String(n % 100).padStart(2, '0')}`,
  'FwAgent.url': (n) => `https://agent-${n}.example`,
};

/** Referenced models before the models pointing at them. */
function creationOrder(models: readonly ModelDefinition[]): ModelDefinition[] {
  const done: ModelDefinition[] = [];
  const visit = (m: ModelDefinition, seen: Set<string>) => {
    if (done.includes(m) || seen.has(m.name)) return;
    seen.add(m.name);
    for (const f of Object.values(m.fields)) {
      const target = f.edit.reference?.model ?? f.edit.collection?.model;
      const other = models.find((x) => x.name === target);
      if (other && other !== m) visit(other, seen);
    }
    done.push(m);
  };
  for (const m of models) visit(m, new Set());
  return done;
}

describeEachSql('examples/demo: every route answers as GET /fw-api/openapi.json describes it', (db) => {
  it('calls every described route (success and error answers) and validates each status and body', async function () {
    // Hundreds of requests beside the whole suite on two cores: 91–117 s measured in a full run.
    this.timeout(300_000);
    const filesDir = mkdtempSync(join(tmpdir(), 'fw-openapi-files-'));
    const demo = await createDemoApp({ dbUrl: db().url, adminPassword: 'demo-pass-1', ui: false, filesDir, config: { 'fw-app.verifyCodeCount': 100 } });
    // The administrator has chosen a password already (a first one reaches only its change).
    await demo.store.users.setPassword((await demo.store.users.findByAccount('admin'))!.id, 'demo-pass-1');
    try {
      const agent = request(demo.app.callback());
      // The description the demo serves, behind a token (fwAdmin's default).
      expect((await agent.get('/fw-api/openapi.json').expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
      const first = (
        await agent
          .post('/fw-api/login')
          .send({ account: 'admin', pwd: encodePassword('demo-pass-1') })
          .expect(200)
      ).body.token as string;
      const doc = (await agent.get('/fw-api/openapi.json').set('token', first).expect(200)).body as { paths: Record<string, Record<string, { operationId: string }>> };
      const api = openApiChecker(agent, doc);
      const { call, json } = api;
      const described = (op: string) => api.operations().includes(op);
      const attachmentFields = (M: string): string[] =>
        described(`POST /data/upload/${M}/{field}`) ? api.operationOf(`POST /data/upload/${M}/{field}`).parameters![0]!.schema.enum! : [];

      // Login routes.
      await call('get', '/openapi.json', { token: first });
      await call('get', '/openapi.json');
      await call('get', '/login-settings');
      await call('post', '/login', { body: { account: 'admin', pwd: encodePassword('wrong-pass') } });
      await call('post', '/login', { raw: '{"account":', type: 'application/json', invalidBody: true });
      const token = json<{ token: string }>(await call('post', '/login', { body: { account: 'admin', pwd: encodePassword('demo-pass-1') } })).token;
      const captcha = await call('get', '/code-img', { query: { mark: 'mark-0001' } });
      expect(captcha.headers['content-type']).to.equal('image/png');
      await call('get', '/code-img', { query: { mark: '../x' } });
      await call('get', '/userinfo', { token });
      await call('get', '/userinfo');
      await call('get', '/menu', { token });
      await call('post', '/ai/mcp', { token, headers: { Accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      await call('post', '/ai/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      await call('post', '/ai/mcp', { token, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      await call('post', '/ai/mcp', { token, headers: { Accept: 'application/json, text/event-stream' }, body: { hello: 1 }, invalidBody: true });

      // Every data route of every model, in an order that lets references point at real rows.
      const ids: Record<string, number> = {};
      let n = 0;
      const sample = (m: ModelDefinition): Record<string, unknown> => {
        n += 1;
        const row: Record<string, unknown> = {};
        for (const name of m.fieldNames) {
          const f = m.fields[name]!;
          if (f.primaryKey || f.edit.readonly) continue;
          const override = OVERRIDES[`${m.name}.${name}`];
          const length = f.rules.find((r) => r.type === 'length') as { min?: number } | undefined;
          const target = f.edit.reference?.model ?? f.edit.collection?.model;
          const values: Record<string, unknown> = {
            [EditType.NUMBER]: f.edit.integer ? n : n + 0.5,
            [EditType.BOOLEAN]: true,
            [EditType.CHOICE]: f.edit.choices?.[0]?.value,
            [EditType.MULTI_CHOICE]: [f.edit.choices?.[0]?.value],
            [EditType.TAGS]: ['one', 'two'],
            [EditType.DATE]: '2020-01-02',
            [EditType.DATETIME]: '2020-01-02T03:04:05.000Z',
            [EditType.PASSWORD]: `secret-${n}-0123456789abcdef`,
            [EditType.REFERENCE_TABLE]: target && target !== m.name ? (ids[target] ?? null) : null,
            [EditType.REFERENCE_TREE]: target && target !== m.name ? (ids[target] ?? null) : null,
            [EditType.COLLECTION]: target && ids[target] ? [ids[target]] : [],
            ATTACHMENT: [],
          };
          row[name] = override ? override(n) : name in values || f.edit.type in values ? values[f.edit.type] : `${name}-${n}`.padEnd(length?.min ?? 0, 'x');
        }
        return row;
      };

      for (const m of creationOrder(demo.registry.list())) {
        const M = m.name;
        const has = (path: string, method: string) => Boolean(doc.paths[path]?.[method]);
        await call('get', `/build/${M}`, { token });
        await call('get', `/build/${M}`);
        if (has(`/power/explain/${M}`, 'get')) await call('get', `/power/explain/${M}`, { token });
        const page = json<{ rows: Array<Record<string, unknown>> }>(await call('post', `/data/table/${M}`, { token, body: { page: 1, size: 5 } }));
        await call('post', `/data/table/${M}`, { token, body: { size: 0 }, invalidBody: true });
        await call('post', `/data/table/${M}`, { token, raw: 'x', type: 'text/plain' });
        let id = page.rows[0]?.[m.primaryKey] as number | undefined;
        if (has(`/data/modify/${M}`, 'post')) {
          id = json(await call('post', `/data/modify/${M}`, { token, body: sample(m) }))[m.primaryKey] as number;
          await call('post', `/data/modify/${M}`, { token, body: { nope: 1 }, invalidBody: true });
        }
        if (id !== undefined) ids[M] = id;
        if (has(`/data/${M}/{id}`, 'get')) {
          if (id !== undefined) {
            const details = await call('get', `/data/${M}/{id}`, { token, params: { id } });
            expect(details.headers.etag, `${M} ETag`).to.match(/^"/);
          }
          await call('get', `/data/${M}/{id}`, { token, params: { id: 2147483647 } });
          await call('get', `/data/${M}/{id}`, { token, params: { id: 'x' } });
        }
        if (id === undefined) continue;
        if (has(`/data/modify/${M}/update`, 'post')) {
          await call('post', `/data/modify/${M}/update`, { token, body: { [m.primaryKey]: id } });
          await call('post', `/data/modify/${M}/update`, { token, body: { [m.primaryKey]: 2147483647 } });
          await call('post', `/data/modify/${M}/update`, { token, headers: { 'If-Match': '"stale"' }, body: { [m.primaryKey]: id } });
        }
        if (has(`/data/modify/${M}/update-cell`, 'post')) {
          const cells = (doc as unknown as { components: { schemas: Record<string, { properties: { field: { enum: string[] } } }> } }).components.schemas[`${M}Cell`]!.properties
            .field.enum;
          const field = cells[0]!;
          const current = json(await call('get', `/data/${M}/{id}`, { token, params: { id } }))[field];
          await call('post', `/data/modify/${M}/update-cell`, { token, body: { id, field, value: current ?? null } });
          await call('post', `/data/modify/${M}/update-cell`, { token, body: { id, field: 'nope', value: 1 }, invalidBody: true });
        }
        // Issue 23: bulk edit (the row's own value again), its history, a restore of an entry of it.
        if (has(`/data/modify/${M}/update-many`, 'post')) {
          const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: { field: { enum: string[] } } }> } }).components.schemas;
          const field = schemas[`${M}Cell`]?.properties.field.enum[0];
          if (field !== undefined) {
            const current = json(await call('get', `/data/${M}/{id}`, { token, params: { id } }))[field];
            await call('post', `/data/modify/${M}/update-many`, { token, body: { ids: [id], values: { [field]: current ?? null } } });
          }
          await call('post', `/data/modify/${M}/update-many`, { token, body: { ids: [id], values: {} }, invalidBody: true });
        }
        if (has(`/data/${M}/{id}/history`, 'get')) {
          // A form edit that changes the row's values, for the history to show and the restore to put back.
          if (has(`/data/${M}/{id}/restore`, 'post')) await call('post', `/data/modify/${M}/update`, { token, body: { ...sample(m), [m.primaryKey]: id } });
          const history = json<{ rows: Array<{ id: number }> }>(await call('get', `/data/${M}/{id}/history`, { token, params: { id } }));
          await call('get', `/data/${M}/{id}/history`, { token, params: { id: 2147483647 } });
          if (has(`/data/${M}/{id}/restore`, 'post')) {
            // An entry of the row (its add, or an edit of the same value: 409 when nothing changes), or none at all.
            await call('post', `/data/${M}/{id}/restore`, { token, params: { id }, body: { entry: history.rows[0]?.id ?? 1 } });
            await call('post', `/data/${M}/{id}/restore`, { token, params: { id }, body: { entry: 'x' }, invalidBody: true });
          }
        }
        for (const field of Object.keys(m.fields).filter(
          (f) => has(`/data/reference/${M}/{field}`, 'post') && [EditType.REFERENCE_TABLE, EditType.REFERENCE_TREE, EditType.COLLECTION].includes(m.fields[f]!.edit.type as never),
        )) {
          await call('post', `/data/reference/${M}/{field}`, { token, params: { field }, body: { search: '' } });
        }
        if (has(`/data/reference/${M}/{field}`, 'post')) await call('post', `/data/reference/${M}/{field}`, { token, params: { field: 'nope' }, body: {} });
        if (has(`/data/print/${M}/{id}`, 'get')) {
          await call('get', `/data/print/${M}/{id}`, { query: { _token: token }, params: { id } });
          await call('get', `/data/print/${M}/{id}`, { token, params: { id: 2147483647 } });
        }
        if (has(`/data/export/${M}`, 'get')) {
          const csv = await call('get', `/data/export/${M}`, { query: { _token: token, sort: `${m.primaryKey},desc` } });
          const xlsx = await call('get', `/data/export/${M}`, { token, query: { format: 'xlsx' } });
          await call('get', `/data/export/${M}`, { token, query: { conditions: '[' } });
          if (has(`/data/import/${M}`, 'post')) {
            const csvText = (csv.body as Buffer).toString('utf8');
            expect(json<{ imported: number }>(await call('post', `/data/import/${M}`, { token, raw: csvText, type: 'text/csv' })).imported).to.be.greaterThan(0);
            if (described(`GET /data/import-template/${M}`)) {
              expect(xlsx.headers['content-type']).to.equal(XLSX);
              expect(json<{ imported: number }>(await call('post', `/data/import/${M}`, { token, raw: xlsx.body as Buffer, type: XLSX })).imported).to.be.greaterThan(0);
              const multipart = await call('post', `/data/import/${M}`, { token, files: [{ name: `${M}.csv`, bytes: Buffer.from(csvText), type: 'text/csv' }] });
              expect(json<{ imported: number }>(multipart).imported).to.be.greaterThan(0);
              expect((await call('get', `/data/import-template/${M}`, { token })).headers['content-type']).to.equal(XLSX);
              expect((await call('get', `/data/import-template/${M}`, { token, query: { format: 'csv' } })).headers['content-type']).to.match(/^text\/csv/);
              await call('get', `/data/import-template/${M}`, { token, query: { format: 'pdf' } });
            }
            await call('post', `/data/import/${M}`, { token, raw: 'nope\n1\n', type: 'text/csv' });
            // A refused row: every detail names the spreadsheet row and column.
            const refused = await call('post', `/data/import/${M}`, { token, raw: 'title,price\nOk,1\nBad,-5\n', type: 'text/csv' });
            expect(json<{ error: { details: Array<{ row: number; column: string }> } }>(refused).error.details[0]).to.include({ row: 3, column: 'B' });
            await call('post', `/data/import/${M}`, { token, raw: '{}', type: 'application/json' });
          }
        }
        for (const field of attachmentFields(M)) {
          // A file the field accepts (an image, or a PDF), then a page of HTML dressed up as an image.
          const accept = (m.fields[field]!.edit as { attachment?: { image?: boolean; accept?: readonly string[] } }).attachment;
          const good = accept?.image || !accept?.accept?.length ? { name: 'cover.png', bytes: PNG, type: 'image/png' } : { name: 'paper.pdf', bytes: PDF, type: 'application/pdf' };
          const stored = json<{ files: unknown[] }>(await call('post', `/data/upload/${M}/{field}`, { token, params: { field }, files: [good] })).files;
          expect(stored, `${M}.${field} upload`).to.have.length(1);
          await call('post', `/data/upload/${M}/{field}`, {
            token,
            params: { field },
            files: [{ name: 'page.png', bytes: Buffer.from('<html><script>alert(1)</script></html>'), type: 'image/png' }],
          });
          await call('post', `/data/upload/${M}/{field}`, { token, params: { field }, raw: 'x', type: 'text/plain' });
          const saved = json(await call('post', `/data/modify/${M}/update`, { token, body: { [m.primaryKey]: id, [field]: stored } }));
          const file = (saved[field] as Array<{ id: string }>)[0]!;
          const bytes = await call('get', `/data/file/${M}/{field}/{rowId}/{fileId}`, { token, params: { field, rowId: id, fileId: file.id } });
          expect(bytes.headers['x-content-type-options']).to.equal('nosniff');
          if (good.type === 'image/png') {
            const shown = await call('get', `/data/file/${M}/{field}/{rowId}/{fileId}`, { token, params: { field, rowId: id, fileId: file.id }, query: { inline: '1' } });
            expect(shown.headers['content-disposition']).to.match(/^inline/);
          }
          await call('get', `/data/file/${M}/{field}/{rowId}/{fileId}`, { token, params: { field, rowId: id, fileId: 'A'.repeat(24) } });
          await call('get', `/data/file/${M}/{field}/{rowId}/{fileId}`, { params: { field, rowId: id, fileId: file.id } });
        }
        if (has(`/data/modify/${M}/copy`, 'post')) {
          const copy = json(await call('post', `/data/modify/${M}/copy`, { token, body: { id, values: sample(m) } }))[m.primaryKey] as number;
          await call('post', `/data/modify/${M}/copy`, { token, body: { id: 2147483647 } });
          if (has(`/data/modify/${M}/delete`, 'post')) {
            expect(json(await call('post', `/data/modify/${M}/delete`, { token, body: { ids: [copy] } }))).to.include({ deleted: 1 });
            await call('post', `/data/modify/${M}/delete`, { token, body: { ids: [] }, invalidBody: true });
            // Issue 23: the deleted copy waits in the trash, comes back, and is emptied for good.
            if (has(`/data/trash/${M}`, 'post')) {
              await call('post', `/data/trash/${M}`, { token, body: { page: 1, size: 5 } });
              await call('post', `/data/trash/${M}`, { token, body: { size: 0 }, invalidBody: true });
              if (has(`/data/modify/${M}/undelete`, 'post')) {
                const back = json(await call('post', `/data/modify/${M}/undelete`, { token, body: { ids: [copy] } }));
                await call('post', `/data/modify/${M}/undelete`, { token, body: { ids: [] }, invalidBody: true });
                // Undoing the undelete deletes the copy again (to the trash): previewed first.
                expect(json(await call('post', '/data/undo', { token, body: { batch: back.batch, dryRun: true } }))).to.include({ undone: 1, dryRun: true });
                expect(json(await call('post', '/data/undo', { token, body: { batch: back.batch } }))).to.include({ undone: 1 });
                await call('post', '/data/undo', { token, body: { batch: 'not-a-batch' }, invalidBody: true });
              }
              if (has(`/data/trash/${M}/purge`, 'post')) {
                await call('post', `/data/trash/${M}/purge`, { token, body: { ids: [copy] } });
                await call('post', `/data/trash/${M}/purge`, { token, body: { ids: 'x' }, invalidBody: true });
              }
            }
          }
        }
        // Issue 24: the model's live changes (server-sent events): the stream opens, and without a token it does not.
        if (described(`GET /data/events/${M}`)) {
          const live = await call('get', `/data/events/${M}`, { token, stream: true });
          expect(live.status).to.equal(200);
          expect(String(live.headers['content-type'])).to.match(/^text\/event-stream/);
          await call('get', `/data/events/${M}`);
        }
        // Issue 24 §4: presence on the row (204, no body), and a malformed tab key (400).
        if (described(`POST /data/presence/${M}`)) {
          expect((await call('post', `/data/presence/${M}`, { token, body: { client: 'walk-tab-0001', id } })).status).to.equal(204);
          await call('post', `/data/presence/${M}`, { token, body: { client: 'bad', id }, invalidBody: true });
        }
        // Issue 23: a saved view of the model, listed and deleted.
        if (has(`/views/${M}`, 'post')) {
          const view = json<{ id: number }>(await call('post', `/views/${M}`, { token, body: { name: `All ${M}`, conditions: [] } }));
          await call('post', `/views/${M}`, { token, body: { name: '' }, invalidBody: true });
          await call('get', `/views/${M}`, { token });
          await call('get', `/views/${M}`);
          await call('delete', `/views/${M}/{id}`, { token, params: { id: view.id } });
          await call('delete', `/views/${M}/{id}`, { token, params: { id: view.id } });
        }
      }
      // The other error answers, each checked against its status's description.
      expect((await call('post', '/data/modify/Book', { token, body: { title: '', price: -1 }, invalidBody: true })).status).to.equal(422);
      await call('post', '/data/modify/Book/update-cell', { token, body: { id: ids.Book, field: 'isbn', value: '0441172717' }, invalidBody: true });
      expect((await call('post', '/data/table/Book', { token, raw: JSON.stringify({ pad: 'x'.repeat(1_100_000) }), type: 'application/json' })).status).to.equal(413);
      const role = json(await call('get', '/data/FwRole/{id}', { token, params: { id: ids.FwRole! } }));
      const taken = await call('post', '/data/modify/FwRole', { token, body: { code: role.code, name: 'Again' } });
      expect(taken.status).to.equal(409);
      const stale = await call('post', '/data/modify/Book/update', { token, headers: { 'If-Match': '"x"' }, body: { id: ids.Book } });
      expect(json<{ error: { code: string } }>(stale).error.code).to.equal('STALE_ROW');
      // A restore that puts a changed title back.
      await call('post', '/data/modify/Book/update-cell', { token, body: { id: ids.Book, field: 'title', value: 'A changed title' } });
      const bookHistory = json<{ rows: Array<{ id: number }> }>(await call('get', '/data/Book/{id}/history', { token, params: { id: ids.Book! } }));
      const restored = json<{ restored: string[] }>(await call('post', '/data/Book/{id}/restore', { token, params: { id: ids.Book! }, body: { entry: bookHistory.rows[0]!.id } }));
      expect(restored.restored).to.deep.equal(['title']);
      await call('get', '/data/print.css');
      await call('get', '/data/print.js');

      // A user without menus: refused with 403 on a model's routes, and changes their own password.
      const clerk = { account: 'clerk-openapi', password: 'clerk-pass-1' };
      await call('post', '/data/modify/FwUser', { token, body: { account: clerk.account, name: 'Clerk', password: clerk.password } });
      const clerkToken = json<{ token: string }>(await call('post', '/login', { body: { account: clerk.account, pwd: encodePassword(clerk.password) } })).token;
      await call('post', '/data/table/Book', { token: clerkToken, body: {} });
      // The permission editor's routes (issue 20 §1): the administrator's answers, the clerk's refusals, bad input.
      await call('get', '/power/grantable', { token });
      await call('get', '/power/grantable', { token: clerkToken });
      await call('get', '/power/assignable', { token });
      await call('get', '/power/assignable', { token: clerkToken });
      await call('get', '/power/assignable');
      await call('get', '/power/explain/Book', { token: clerkToken });
      await call('get', '/power/explain/Book', { token: clerkToken, query: { user: '1' } });
      await call('get', '/power/explain/Book', { token, query: { user: 'x' } });
      await call('get', '/power/explain/Book', { token, query: { user: '2147483000' } });
      await call('get', '/data/Book/{id}', { token: clerkToken, params: { id: ids.Book! } });
      await call('post', '/change-pwd', { token: clerkToken, body: { pwd: encodePassword('wrong-pass'), newPwd: encodePassword('x'), newPwd2: encodePassword('y') } });
      await call('post', '/change-pwd', {
        token: clerkToken,
        body: { pwd: encodePassword(clerk.password), newPwd: encodePassword('clerk-pass-2'), newPwd2: encodePassword('clerk-pass-2') },
      });
      // An open-API key of the clerk, exchanged for a token.
      const secret = 'openapi-secret-0123456789';
      const key = json(
        await call('post', '/data/modify/FwOpenApi', { token, body: { name: 'tool', secret, userId: json(await call('get', '/userinfo', { token: clerkToken })).id } }),
      );
      await call('post', '/open-api/token', { body: { appId: key.appId, secret } });
      await call('post', '/open-api/token', { body: { appId: key.appId, secret: 'wrong-secret-0123456789' } });
      await call('post', '/open-api/token', { body: { appId: '' }, invalidBody: true });
      // A person's own table layout (issue 20 §5): stored, read, refused when malformed, forgotten.
      await call('put', '/prefs/{key}', { token: clerkToken, params: { key: 'table:Book' }, body: { value: { hidden: ['isbn'], density: 'small' } } });
      expect(json<{ value: unknown }>(await call('get', '/prefs/{key}', { token: clerkToken, params: { key: 'table:Book' } })).value).to.deep.equal({
        hidden: ['isbn'],
        density: 'small',
      });
      await call('put', '/prefs/{key}', { token: clerkToken, params: { key: 'table:Book' }, body: { value: { density: 'huge' } }, invalidBody: true });
      await call('put', '/prefs/{key}', {
        token: clerkToken,
        params: { key: 'table:Book' },
        raw: JSON.stringify({ value: { hidden: ['x'.repeat(100)] }, pad: 'x'.repeat(9000) }),
        type: 'application/json',
      });
      await call('get', '/prefs/{key}', { token: clerkToken, params: { key: 'Book' } });
      await call('get', '/prefs/{key}', { params: { key: 'table:Book' } });
      await call('delete', '/prefs/{key}', { token: clerkToken, params: { key: 'table:Book' } });
      // Live sessions (issue 19 §6): the clerk's own, an administrator's view of online users.
      const mine = json<{ sessions: Array<{ id: string; current: boolean }> }>(await call('get', '/sessions', { token: clerkToken }));
      await call('get', '/sessions', { token: clerkToken, query: { user: '1' } });
      await call('get', '/sessions/online', { token });
      await call('get', '/sessions/online', { token: clerkToken });
      // The home page's own activity (issue 20 §6).
      await call('get', '/my/activity', { token: clerkToken });
      await call('get', '/my/activity', { token: clerkToken, query: { limit: '0' } });
      const spare = json<{ token: string }>(await call('post', '/login', { body: { account: clerk.account, pwd: encodePassword('clerk-pass-2') } })).token;
      const other = json<{ sessions: Array<{ id: string; current: boolean }> }>(await call('get', '/sessions', { token: spare })).sessions.find((x) => x.current)!;
      await call('delete', '/sessions/{id}', { token: clerkToken, params: { id: other.id } });
      await call('delete', '/sessions/{id}', { token: clerkToken, params: { id: 'f'.repeat(24) } });
      await call('delete', '/sessions/{id}', { token: clerkToken, params: { id: 'not-an-id' } });
      await call('post', '/sessions/revoke-others', { token: clerkToken });
      expect(mine.sessions.some((x) => x.current)).to.equal(true);
      await call('post', '/logout', { token: clerkToken });
      await call('get', '/logout', { token });
      await call('get', '/logout', { token });

      // Every model's routes are in the description (fourteen models, about ten routes each).
      expect(api.operations().length).to.be.greaterThan(150);
      expect(api.uncalled(), 'described routes never called').to.deep.equal([]);
      expect(api.neverSucceeded(), 'described routes never answered with success').to.deep.equal([]);
      // The error answers were checked too: every data route of Book answered at least one error.
      expect([...api.called.entries()].filter(([op, statuses]) => op.includes('/Book') && [...statuses].every((s) => s < 400)).map(([op]) => op)).to.deep.equal([]);
    } finally {
      await demo.close();
      rmSync(filesDir, { recursive: true, force: true });
    }
  });
});
