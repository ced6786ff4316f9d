import { expect } from 'chai';
import { MENU_STATUS, POWER_FLAGS, defineModel, type MenuStatus, type PowerFlag, type PowerHandler, type PowerObject } from '@fw/core';
import { PowerResolver, grantedPower, menuCodeForFlag, modelMenuCode, resolvePower, type PowerUser } from './index.js';

// Written out here rather than taken from the implementation, so a wrong code there fails.
const FUNCTION_MENU: Record<PowerFlag, string | null> = {
  add: 'ADD',
  delete: 'DELETE',
  edit: 'EDIT',
  query: null,
  viewDetails: 'VIEW_DETAIL',
  export: 'EXPORT',
  importable: 'IMPORTABLE',
  print: null,
  copy: null,
  cellEdit: null,
  ai: null,
};
const FINAL_FLAGS: readonly PowerFlag[] = ['ai', 'cellEdit'];

type MenuState = 'granted' | 'missing' | 'disabled';
const MENU_STATES: readonly MenuState[] = ['granted', 'missing', 'disabled'];

const allOn: PowerHandler = (power) => {
  for (const flag of POWER_FLAGS) power[flag] = true;
};

const ann: PowerUser = { id: 7, account: 'ann' };
const root: PowerUser = { id: 1, account: 'admin', isAdmin: true };

/** What a store hands the engine: the user's menus; disabled ones are dropped, as callers must. */
function grantsFrom(menus: readonly { code: string; status: MenuStatus }[]): Set<string> {
  return new Set(menus.filter((menu) => menu.status !== MENU_STATUS.DISABLED).map((menu) => menu.code));
}

function menusFor(model: string, flag: PowerFlag, page: MenuState, fn: MenuState): { code: string; status: MenuStatus }[] {
  const menus: { code: string; status: MenuStatus }[] = [];
  const add = (code: string, state: MenuState) => {
    if (state !== 'missing') menus.push({ code, status: state === 'granted' ? MENU_STATUS.OPEN : MENU_STATUS.DISABLED });
  };
  add(model, page);
  const suffix = FUNCTION_MENU[flag];
  if (suffix !== null) add(`${model}@${suffix}`, fn);
  // Every other function menu is granted, so only the menus under test can switch the flag off.
  for (const other of POWER_FLAGS) {
    const otherSuffix = FUNCTION_MENU[other];
    if (other !== flag && otherSuffix !== null) menus.push({ code: `${model}@${otherSuffix}`, status: MENU_STATUS.OPEN });
  }
  return menus;
}

function expected(flag: PowerFlag, declared: boolean, page: MenuState, fn: MenuState, admin: boolean, handler: boolean): boolean {
  if (FINAL_FLAGS.includes(flag) && !declared) return false;
  if (handler) return true;
  const hasFunctionMenu = FUNCTION_MENU[flag] !== null;
  return declared && (admin || page === 'granted') && (admin || !hasFunctionMenu || fn === 'granted');
}

describe('power engine: every flag × declared × menus × admin × handler', () => {
  for (const flag of POWER_FLAGS) {
    for (const declared of [true, false]) {
      it(`${flag} declared ${declared ? 'on' : 'off'}`, async () => {
        const fnStates: readonly MenuState[] = FUNCTION_MENU[flag] === null ? ['missing'] : MENU_STATES;
        let cases = 0;
        for (const withHandler of [false, true]) {
          const model = defineModel({
            name: 'Book',
            power: { [flag]: declared, ...(withHandler ? { powerHandler: allOn } : {}) },
            fields: { title: {} },
          });
          const resolver = new PowerResolver();
          for (const admin of [false, true]) {
            const user: PowerUser = admin ? root : ann;
            for (const page of MENU_STATES) {
              for (const fn of fnStates) {
                const grants = grantsFrom(menusFor('Book', flag, page, fn));
                const label = `${flag} declared=${declared} page=${page} fn=${fn} admin=${admin} handler=${withHandler}`;
                const want = expected(flag, declared, page, fn, admin, withHandler);
                const before = grantedPower(model, user, grants);
                expect(before[flag], `grantedPower: ${label}`).to.equal(expected(flag, declared, page, fn, admin, false));
                const resolved = await resolvePower(model, user, grants);
                expect(resolved[flag], `resolvePower: ${label}`).to.equal(want);
                const cached = await resolver.resolve(model, user, { codes: grants, version: `${page}/${fn}` });
                expect(cached[flag], `PowerResolver: ${label}`).to.equal(want);
                for (const f of POWER_FLAGS) expect(resolved[f], `${f} is a boolean: ${label}`).to.be.a('boolean');
                cases += 1;
              }
            }
          }
        }
        expect(cases).to.equal(FUNCTION_MENU[flag] === null ? 12 : 36);
      });
    }
  }
});

describe('menu codes', () => {
  it('modelMenuCode is the model name and menuCodeForFlag gives <Model>@<SUFFIX> for the six function menus', () => {
    const model = defineModel({ name: 'Book', fields: {} });
    expect(modelMenuCode(model)).to.equal('Book');
    for (const flag of POWER_FLAGS) {
      const suffix = FUNCTION_MENU[flag];
      expect(menuCodeForFlag(model, flag), flag).to.equal(suffix === null ? undefined : `Book@${suffix}`);
    }
  });
});

describe('grantedPower(model, user, grants)', () => {
  it('gives an administrator every declared flag without any grant, and nothing declared off', () => {
    const model = defineModel({ name: 'Book', power: { delete: false }, fields: {} });
    expect(grantedPower(model, root, new Set())).to.deep.equal({
      add: true,
      delete: false,
      edit: true,
      query: true,
      viewDetails: true,
      export: false,
      importable: false,
      print: true,
      copy: true,
      cellEdit: true,
      ai: true,
    });
  });

  it('turns everything off without the model menu, even with every function menu', () => {
    const model = defineModel({ name: 'Book', power: { export: true, importable: true }, fields: {} });
    const grants = new Set(['Book@ADD', 'Book@EDIT', 'Book@DELETE', 'Book@EXPORT', 'Book@IMPORTABLE', 'Book@VIEW_DETAIL']);
    const power = grantedPower(model, ann, grants);
    for (const flag of POWER_FLAGS) expect(power[flag], flag).to.equal(false);
  });

  it('does not accept another model’s menus', () => {
    const model = defineModel({ name: 'Book', fields: {} });
    const power = grantedPower(model, ann, new Set(['Author', 'Author@EDIT', 'Book@EDITX', 'book']));
    expect(power.query).to.equal(false);
    expect(power.edit).to.equal(false);
  });

  it('returns a new object each call', () => {
    const model = defineModel({ name: 'Book', fields: {} });
    const a = grantedPower(model, ann, new Set(['Book']));
    a.query = false;
    expect(grantedPower(model, ann, new Set(['Book'])).query).to.equal(true);
  });
});

describe('resolvePower(model, user, grants)', () => {
  function setup(powerHandler: PowerHandler, power: Record<string, boolean> = {}) {
    const model = defineModel({ name: 'Book', power: { ...power, powerHandler }, fields: {} });
    const grants = new Set(['Book', 'Book@ADD', 'Book@EDIT', 'Book@DELETE', 'Book@VIEW_DETAIL']);
    return { model, grants };
  }

  it('keeps declared ai: false and cellEdit: false off for an admin with every menu and a handler turning all on', async () => {
    const { model } = setup(allOn, { ai: false, cellEdit: false });
    const everyMenu = new Set(['Book', ...Object.values(FUNCTION_MENU).flatMap((s) => (s === null ? [] : [`Book@${s}`]))]);
    const power = await resolvePower(model, root, everyMenu);
    expect(power.ai).to.equal(false);
    expect(power.cellEdit).to.equal(false);
    expect(power.export).to.equal(true); // the handler did run
    const cached = await new PowerResolver().resolve(model, root, { codes: everyMenu, version: 1 });
    expect(cached.ai).to.equal(false);
    expect(cached.cellEdit).to.equal(false);
  });

  it('keeps them off when a handler writes a truthy non-boolean too', async () => {
    const { model, grants } = setup(
      (power) => {
        Object.assign(power, { ai: 'yes', cellEdit: 1 });
      },
      { ai: false, cellEdit: false },
    );
    const power = await resolvePower(model, root, grants);
    expect(power.ai).to.equal(false);
    expect(power.cellEdit).to.equal(false);
  });

  it('hands the handler a copy with the granted flags and { user, model }, as a function or { handler }, awaited', async () => {
    const seen: { power: PowerObject; context: unknown }[] = [];
    const handler: PowerHandler = {
      async handler(power, context) {
        seen.push({ power: { ...power }, context });
        await new Promise((resolve) => setTimeout(resolve, 5));
        power.edit = false; // applied after an await: the engine must wait for it
      },
    };
    const { model, grants } = setup(handler);
    const power = await resolvePower(model, ann, grants);
    expect(power.edit).to.equal(false);
    expect(seen).to.have.length(1);
    expect(seen[0]!.power).to.deep.equal(grantedPower(model, ann, grants));
    expect(seen[0]!.context).to.deep.equal({ user: ann, model: 'Book' });
  });

  it('lets a handler turn flags off per user', async () => {
    const { model, grants } = setup((power, { user }) => {
      if (user.account !== 'ann') power.delete = false;
    });
    expect((await resolvePower(model, ann, grants)).delete).to.equal(true);
    expect((await resolvePower(model, { id: 8, account: 'bob' }, grants)).delete).to.equal(false);
  });

  it('keeps the extra keys a handler adds', async () => {
    const { model, grants } = setup((power) => {
      power.maskColumns = ['salary'];
      power.note = 'read-only on weekends';
    });
    const power = await resolvePower(model, ann, grants);
    expect(power.maskColumns).to.deep.equal(['salary']);
    expect(power.note).to.equal('read-only on weekends');
  });

  it('treats non-boolean flag values set by a handler as false, and always returns booleans', async () => {
    const { model, grants } = setup((power) => {
      Object.assign(power, { add: 'yes', edit: 1, query: null, viewDetails: {} });
      delete (power as Partial<PowerObject>).delete;
    });
    const power = await resolvePower(model, ann, grants);
    expect(power.add).to.equal(false);
    expect(power.edit).to.equal(false);
    expect(power.query).to.equal(false);
    expect(power.viewDetails).to.equal(false);
    expect(power.delete).to.equal(false);
    for (const flag of POWER_FLAGS) expect(power[flag], flag).to.be.a('boolean');
  });

  it('passes a handler error to the caller', async () => {
    const { model, grants } = setup(() => {
      throw new Error('handler broke');
    });
    let caught: unknown;
    await resolvePower(model, ann, grants).catch((error: unknown) => (caught = error));
    expect(caught).to.be.instanceOf(Error).with.property('message', 'handler broke');
  });
});
