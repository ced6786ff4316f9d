/**
 * What `fn` throws, checked to be an instance of `type`; fails the test when it throws nothing or
 * something else.
 * @example expect(thrown(() => defineModel(bad), FwDefinitionError).key).to.equal('Book.name');
 */
export function thrown<T extends Error>(fn: () => unknown, type: abstract new (...args: never[]) => T): T {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  if (caught === undefined) throw new Error(`expected ${type.name} to be thrown, nothing was`);
  if (!(caught instanceof type)) throw new Error(`expected ${type.name}, got ${caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught)}`);
  return caught;
}
