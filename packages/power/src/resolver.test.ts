import { expect } from 'chai';
import { FwDefinitionError, defineModel, type PowerHandler } from '@fw/core';
import { PowerResolver, type PowerUser } from './index.js';

/** A grant set that counts lookups: zero lookups on a resolve means the cache answered. */
class CountingSet extends Set<string> {
  lookups = 0;
  override has(value: string): boolean {
    this.lookups += 1;
    return super.has(value);
  }
}

function setup(options: { maxEntries?: number; powerHandler?: PowerHandler } = {}) {
  let handlerCalls = 0;
  const powerHandler: PowerHandler = options.powerHandler ?? (() => void (handlerCalls += 1));
  const book = defineModel({ name: 'Book', power: { powerHandler }, fields: {} });
  const author = defineModel({ name: 'Author', fields: {} });
  const resolver = new PowerResolver(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries });
  const ann: PowerUser = { id: 7, account: 'ann' };
  return { book, author, resolver, ann, handlerCalls: () => handlerCalls };
}

describe('PowerResolver', () => {
  it('serves the grant part from the cache on a repeated key, and still runs the handler every call', async () => {
    const { book, resolver, ann, handlerCalls } = setup();
    const codes = new CountingSet(['Book', 'Book@EDIT']);
    const first = await resolver.resolve(book, ann, { codes, version: 1 });
    const lookupsAfterFirst = codes.lookups;
    expect(lookupsAfterFirst).to.be.greaterThan(0);
    const second = await resolver.resolve(book, ann, { codes, version: 1 });
    expect(codes.lookups, 'the second resolve must not read the grants').to.equal(lookupsAfterFirst);
    expect(second).to.deep.equal(first);
    expect(second.edit).to.equal(true);
    expect(handlerCalls()).to.equal(2);
    expect(resolver.size).to.equal(1);
  });

  it('runs a time- or data-dependent handler afresh on the cached grants', async () => {
    let open = true;
    const { book, resolver, ann } = setup({
      powerHandler: (power) => {
        if (!open) power.edit = false;
      },
    });
    const grants = { codes: new Set(['Book', 'Book@EDIT']), version: 'v1' };
    expect((await resolver.resolve(book, ann, grants)).edit).to.equal(true);
    open = false;
    expect((await resolver.resolve(book, ann, grants)).edit).to.equal(false);
    open = true;
    expect((await resolver.resolve(book, ann, grants)).edit).to.equal(true);
  });

  it('returns an object the caller may change without touching the cache', async () => {
    const { author, resolver, ann } = setup();
    const grants = { codes: new Set(['Author', 'Author@DELETE']), version: 1 };
    const first = await resolver.resolve(author, ann, grants);
    first.delete = false;
    first.extra = 'mine';
    const second = await resolver.resolve(author, ann, grants);
    expect(second.delete).to.equal(true);
    expect(second).to.not.have.property('extra');
  });

  it('recomputes when the grants version changes (a role lost a menu), and only then', async () => {
    const { book, resolver, ann } = setup();
    expect((await resolver.resolve(book, ann, { codes: new Set(['Book', 'Book@EDIT']), version: 1 })).edit).to.equal(true);
    const revoked = new Set(['Book']);
    // Same version: the key promises the same grants, so the cached answer stands.
    expect((await resolver.resolve(book, ann, { codes: revoked, version: 1 })).edit).to.equal(true);
    expect((await resolver.resolve(book, ann, { codes: revoked, version: 2 })).edit).to.equal(false);
    expect((await resolver.resolve(book, ann, { codes: new Set(['Book', 'Book@EDIT']), version: 3 })).edit).to.equal(true);
  });

  it('tells the number 1 from the string "1" as versions', async () => {
    const { book, resolver, ann } = setup();
    await resolver.resolve(book, ann, { codes: new Set(['Book']), version: 1 });
    expect((await resolver.resolve(book, ann, { codes: new Set(), version: '1' })).query).to.equal(false);
  });

  it('keys on the user id and on the admin flag', async () => {
    const { book, resolver, ann } = setup();
    const codes = new Set(['Book', 'Book@EDIT']);
    expect((await resolver.resolve(book, ann, { codes, version: 1 })).delete).to.equal(false);
    const bob: PowerUser = { id: 8, account: 'bob' };
    expect((await resolver.resolve(book, bob, { codes: new Set(), version: 1 })).query, 'another user').to.equal(false);
    const annAsAdmin: PowerUser = { ...ann, isAdmin: true };
    expect((await resolver.resolve(book, annAsAdmin, { codes, version: 1 })).delete, 'ann made admin').to.equal(true);
    expect((await resolver.resolve(book, ann, { codes, version: 1 })).delete, 'ann no longer admin').to.equal(false);
    expect(resolver.size, 'one entry per (model, user): a newer admin flag or version replaces it').to.equal(2);
  });

  it('keys on the model, and does not serve one definition’s entry for another of the same name', async () => {
    const { book, author, resolver, ann } = setup();
    const codes = new Set(['Book', 'Book@ADD']);
    expect((await resolver.resolve(book, ann, { codes, version: 1 })).add).to.equal(true);
    expect((await resolver.resolve(author, ann, { codes, version: 1 })).add).to.equal(false);
    const reloaded = defineModel({ name: 'Book', power: { add: false }, fields: {} });
    expect((await resolver.resolve(reloaded, ann, { codes, version: 1 })).add).to.equal(false);
  });

  it('stays within maxEntries, dropping the least recently used entry', async () => {
    const { book, resolver } = setup({ maxEntries: 2 });
    const codes = new CountingSet(['Book']);
    const user = (id: number): PowerUser => ({ id, account: `u${id}` });
    const lookups = async (id: number) => {
      const before = codes.lookups;
      await resolver.resolve(book, user(id), { codes, version: 1 });
      return codes.lookups - before;
    };
    expect(await lookups(1)).to.be.greaterThan(0);
    expect(await lookups(2)).to.be.greaterThan(0);
    expect(await lookups(1), 'user 1 cached, now the most recent').to.equal(0);
    expect(await lookups(3)).to.be.greaterThan(0); // evicts user 2, the least recently used
    expect(resolver.size).to.equal(2);
    expect(await lookups(1), 'user 1 kept').to.equal(0);
    expect(await lookups(3), 'user 3 kept').to.equal(0);
    expect(await lookups(2), 'user 2 evicted').to.be.greaterThan(0);
    expect(resolver.size).to.equal(2);
    resolver.clear();
    expect(resolver.size).to.equal(0);
    expect(await lookups(1), 'cleared').to.be.greaterThan(0);
  });

  it('drops the least recently used 5% at once when a large cache is full', async () => {
    const { book, resolver } = setup({ maxEntries: 40 });
    const codes = new CountingSet(['Book']);
    const lookups = async (id: number) => {
      const before = codes.lookups;
      await resolver.resolve(book, { id, account: `u${id}` }, { codes, version: 1 });
      return codes.lookups - before;
    };
    for (let id = 1; id <= 40; id++) await lookups(id);
    for (let id = 1; id <= 20; id++) expect(await lookups(id), `touch ${id}`).to.equal(0);
    expect(resolver.size).to.equal(40);
    await lookups(41); // full: drops 2 (5% of 40), the least recently used: users 21 and 22
    expect(resolver.size).to.equal(39);
    for (const id of [1, 20, 23, 40, 41]) expect(await lookups(id), `user ${id} kept`).to.equal(0);
    for (const id of [21, 22]) expect(await lookups(id), `user ${id} dropped`).to.be.greaterThan(0);
    expect(resolver.size).to.equal(39);
  });

  it('refuses a maxEntries that is not a positive integer', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new PowerResolver({ maxEntries }), String(maxEntries)).to.throw(FwDefinitionError, /maxEntries: must be a positive integer/);
    }
    expect(new PowerResolver({ maxEntries: 1 }).size).to.equal(0);
  });
});

describe('PowerResolver.check and resolveNow', () => {
  it('answers synchronously from the cache when the model has no handler', () => {
    const { author, resolver, ann } = setup();
    const codes = new CountingSet(['Author', 'Author@EDIT']);
    expect(resolver.check(author, ann, { codes, version: 1 }, 'edit')).to.equal(true);
    const lookups = codes.lookups;
    expect(resolver.check(author, ann, { codes, version: 1 }, 'delete')).to.equal(false);
    expect(resolver.check(author, ann, { codes, version: 1 }, 'query')).to.equal(true);
    expect(codes.lookups, 'served from the cache').to.equal(lookups);
    expect(resolver.check(author, ann, { codes: new Set(['Author']), version: 2 }, 'edit'), 'new version').to.equal(false);
  });

  it('runs a synchronous handler on every call and still answers synchronously', () => {
    let open = true;
    let calls = 0;
    const { book, resolver, ann } = setup({
      powerHandler: (power) => {
        calls += 1;
        if (!open) power.edit = false;
      },
    });
    const grants = { codes: new Set(['Book', 'Book@EDIT']), version: 1 };
    expect(resolver.check(book, ann, grants, 'edit')).to.equal(true);
    open = false;
    expect(resolver.check(book, ann, grants, 'edit')).to.equal(false);
    open = true;
    expect(resolver.resolveNow(book, ann, grants)).to.include({ edit: true, delete: false });
    expect(calls).to.equal(3);
  });

  it('applies the final rules after a handler: non-booleans off, declared switches win', () => {
    const model = defineModel({
      name: 'Book',
      power: { cellEdit: false, powerHandler: (power) => Object.assign(power, { edit: 'yes', cellEdit: true, add: 1 }) },
      fields: {},
    });
    const resolver = new PowerResolver();
    const grants = { codes: new Set(['Book', 'Book@EDIT', 'Book@ADD']), version: 1 };
    const ann: PowerUser = { id: 7, account: 'ann', isAdmin: true };
    expect(resolver.check(model, ann, grants, 'edit')).to.equal(false);
    expect(resolver.check(model, ann, grants, 'add')).to.equal(false);
    expect(resolver.check(model, ann, grants, 'cellEdit')).to.equal(false);
    expect(resolver.resolveNow(model, ann, grants)).to.include({ edit: false, add: false, cellEdit: false, query: true });
  });

  it('returns a promise when the handler does, and a rejection when it rejects', async () => {
    let fail = false;
    const { book, resolver, ann } = setup({
      powerHandler: async (power) => {
        await Promise.resolve();
        if (fail) throw new Error('handler down');
        power.edit = false;
      },
    });
    const grants = { codes: new Set(['Book', 'Book@EDIT']), version: 1 };
    const pending = resolver.check(book, ann, grants, 'edit');
    expect(pending).to.be.instanceOf(Promise);
    expect(await pending).to.equal(false);
    expect(await resolver.check(book, ann, grants, 'query')).to.equal(true);
    fail = true;
    let caught: unknown;
    await Promise.resolve(resolver.check(book, ann, grants, 'query')).catch((error: unknown) => (caught = error));
    expect((caught as Error).message).to.equal('handler down');
  });

  it('never answers for one user from another user’s entries (the last-user shortcut)', () => {
    const { author, resolver } = setup({ maxEntries: 3 });
    const users = [1, 2, 3, 4].map((id): PowerUser => ({ id, account: `u${id}` }));
    const grantsOf = (id: number) => ({ codes: new Set(id % 2 ? ['Author', 'Author@EDIT'] : ['Author']), version: id });
    // Interleaved, through evictions (capacity 3 for 4 users): the answer always follows the user.
    for (let round = 0; round < 5; round++) {
      for (const user of [...users, ...users.slice().reverse()]) {
        expect(resolver.check(author, user, grantsOf(user.id), 'edit'), `user ${user.id}`).to.equal(user.id % 2 === 1);
        expect(resolver.size).to.be.at.most(3);
      }
    }
    resolver.clear();
    expect(resolver.check(author, users[1]!, grantsOf(2), 'edit')).to.equal(false);
    expect(resolver.size).to.equal(1);
  });
});
