import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { routerPath } from '@fw/http';
import { CELL_BODY } from '../bodies.js';
import { setupData, type DataFixture } from '../test-setup.js';
import { routerOf } from './router.js';
import { dataRoutes } from './routes.js';
import { VIEW_ROUTES } from './view-routes.js';
import { trashRoutes } from './trash-routes.js';
import { bulkRoutes } from './bulk-routes.js';
import { undoRoutes } from './undo-route.js';
import { liveRoutes } from './live-route.js';
import { presenceRoutes } from './presence-route.js';

// Every route fwData mounts: its own, and those of bulk edit and history, saved views, the trash, undo, live tables and presence (declared with scopes of their own).
const allRoutes = [...dataRoutes, ...bulkRoutes, ...VIEW_ROUTES, ...trashRoutes, ...undoRoutes, ...liveRoutes, ...presenceRoutes];

const api = '/fw-api';

describeEachSql('data routes: declarations and the mounted routes', (db) => {
  let f: DataFixture;
  let alice: string;
  let bob: string;

  before(async () => {
    f = await setupData(db().url);
    [alice, bob] = await Promise.all([f.token('alice'), f.token('bob')]);
  });
  after(() => f?.destroy());

  it('mounts every declared route and nothing else', () => {
    const router = routerOf(f.data);
    expect(router, 'the router behind fwData').to.not.equal(undefined);
    const mounted = router!.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`));
    const declared = allRoutes.map((route) => `${route.method.toUpperCase()} ${api}${routerPath(route.path)}`);
    expect(new Set(declared).size, 'one declaration per path and method').to.equal(declared.length);
    expect([...mounted].sort()).to.deep.equal([...declared].sort());
  });

  it('answers each declared route: 401 without a token, open ones without', async () => {
    for (const route of allRoutes) {
      const path = `${api}${route.path.replace('{fw}', 'Book').replace('{field}', 'title').replace(/\{[A-Za-z]+\}/g, '1')}`;
      const res = await f.agent[route.method](path);
      if (route.security === 'open') expect(res.status, `${route.method} ${path}`).to.equal(200);
      else expect([res.status, res.body.error?.code], `${route.method} ${path}`).to.deep.equal([401, 'UNAUTHENTICATED']);
    }
  });

  // The HTTP answer and DataService's untyped method (the AI tools' way in) refuse alike.
  async function bothRefuse(token: string, user: 'alice' | 'bob', path: string, call: (actor: never) => Promise<unknown>, body: unknown) {
    const res = await f.agent.post(`${api}${path}`).set('token', token).set('content-type', 'application/json').send(JSON.stringify(body));
    const actor = { user: f.users[user], ip: null, source: 'ai' } as never;
    const error = await call(actor).then(
      () => undefined,
      (e: { status: number; code: string; message: string }) => e,
    );
    expect(error, `the service refuses ${JSON.stringify(body)}`).to.not.equal(undefined);
    expect([res.status, res.body.error.code, res.body.error.message]).to.deep.equal([error!.status, error!.code, error!.message]);
    return res.body.error as { code: string; message: string; details?: unknown[]; flag?: string; field?: string };
  }

  it('holds a cell edit to its shape in today’s order: gate, object, switches and field, cellEdit, id, value', async () => {
    const cell = (token: string, user: 'alice' | 'bob', body: unknown) => bothRefuse(token, user, '/data/modify/Book/update-cell', (actor) => f.data.service.updateCell('Book', actor, body), body);
    // The gate comes before the body: bob may not edit, whatever he sends.
    expect(await cell(bob, 'bob', 'not an object')).to.include({ code: 'POWER_DENIED', flag: 'edit' });
    expect(await cell(alice, 'alice', [1])).to.include({ code: 'BAD_REQUEST', message: 'The body must be { id, field, value }' });
    expect(await cell(alice, 'alice', { id: 'x', field: 'isbn', value: '1' })).to.include({ code: 'FIELD_CELL_EDIT_DISABLED', field: 'isbn' });
    expect(await cell(alice, 'alice', { id: 'x', field: 'title', value: 'a' })).to.include({ code: 'BAD_ID' });
    expect(await cell(alice, 'alice', { id: 1, field: 'title' })).to.include({ code: 'BAD_REQUEST', message: 'The body must carry a value (null clears the cell)' });
    // The shape itself, given a scope, is the parser both ways use.
    const model = f.registry.get('Book')!;
    const power = await f.data.service.power(model, f.users.alice);
    expect(CELL_BODY.parse({ id: 7, field: 'title', value: 'T' }, { model, power, limits: f.data.service.limits })).to.include({ id: 7, value: 'T' });
    expect(() => CELL_BODY.parse({ id: 7, field: 'title' }, { model, power, limits: f.data.service.limits })).to.throw('The body must carry a value');
  });

  it('holds the other bodies to their shapes with today’s codes', async () => {
    const expectRefusal = async (path: string, call: (actor: never) => Promise<unknown>, body: unknown, code: string, message: string) =>
      expect(await bothRefuse(alice, 'alice', path, call, body)).to.include({ code, message });
    const service = f.data.service;
    await expectRefusal('/data/modify/Book/update', (a) => service.update('Book', a, 5), 5, 'BAD_REQUEST', 'The body must be a JSON object');
    await expectRefusal('/data/modify/Book/delete', (a) => service.delete('Book', a, { ids: [] }), { ids: [] }, 'BAD_REQUEST', 'The body must be { ids: [...] } with 1 to 1000 ids');
    await expectRefusal('/data/table/Book', (a) => service.query('Book', a, { count: 'some' }), { count: 'some' }, 'BAD_QUERY', 'count is one of auto, exact, none');
    // A reference's field is checked before its body, whose bounds depend on the field's target.
    const reference = (field: string, body: unknown) => bothRefuse(alice, 'alice', `/data/reference/Book/${field}`, (a) => service.referenceCandidates('Book', a, field, body), body);
    expect(await reference('title', { nope: 1 })).to.include({ code: 'UNKNOWN_FIELD', message: 'Book.title is not a reference or collection field' });
    expect(await reference('tags', { nope: 1 })).to.include({ code: 'BAD_QUERY' });
    expect(await reference('tags', 'text')).to.include({ code: 'BAD_QUERY' });
    // An add body that is no object is refused inside the logged write: the operate log keeps it.
    await f.store.knex('fw_operate_log').delete();
    await expectRefusal('/data/modify/Book', (a) => service.add('Book', a, [1]), [1], 'BAD_REQUEST', 'The body must be a JSON object');
    const logged = await f.store.knex('fw_operate_log').where({ model: 'Book', action: 'add' }).whereNot({ status: 'success' });
    expect(logged).to.have.length(2);
  });
});
