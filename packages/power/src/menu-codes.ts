import type { PowerFlag } from '@fw/core';

/**
 * The suffix of each flag's function menu: `<Model>@<SUFFIX>`. Flags missing here (`query`,
 * `print`, `copy`, `cellEdit`, `ai`) have no function menu of their own; they need only the
 * model's menu. The codes match what `@fw/store`'s `menus.createModelMenu` creates.
 */
export const FUNCTION_MENU_SUFFIXES = Object.freeze({
  add: 'ADD',
  edit: 'EDIT',
  delete: 'DELETE',
  export: 'EXPORT',
  importable: 'IMPORTABLE',
  viewDetails: 'VIEW_DETAIL',
} as const satisfies Partial<Record<PowerFlag, string>>);

const SUFFIX_OF: Readonly<Partial<Record<PowerFlag, string>>> = FUNCTION_MENU_SUFFIXES;

/**
 * The code of a model's own menu: the model's name. Holding it is what lets a user open the
 * model's page and run its table query, and every other flag needs it too.
 *
 * @example
 * modelMenuCode(Book); // 'Book'
 */
export function modelMenuCode(model: { readonly name: string }): string {
  return model.name;
}

/**
 * The code of the function menu that gates `flag` on `model`, such as `Book@EDIT`, or
 * `undefined` for a flag that has no function menu (`query`, `print`, `copy`, `cellEdit`, `ai`),
 * which only needs {@link modelMenuCode}.
 *
 * @example
 * menuCodeForFlag(Book, 'viewDetails'); // 'Book@VIEW_DETAIL'
 * menuCodeForFlag(Book, 'print'); // undefined
 */
export function menuCodeForFlag(model: { readonly name: string }, flag: PowerFlag): string | undefined {
  const suffix = SUFFIX_OF[flag];
  return suffix === undefined ? undefined : `${model.name}@${suffix}`;
}
