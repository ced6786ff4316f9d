/**
 * The eleven boolean switches of a model's power, in the order the reference framework lists
 * them. `powerHandler`, the twelfth attribute, is not a flag: it changes these at run time.
 */
export const POWER_FLAGS = ['add', 'delete', 'edit', 'query', 'viewDetails', 'export', 'importable', 'print', 'copy', 'cellEdit', 'ai'] as const;

/** The name of one power switch. */
export type PowerFlag = (typeof POWER_FLAGS)[number];

/** The switches with their values. */
export type PowerFlags = Record<PowerFlag, boolean>;

/**
 * The effective power of one user on one model, handed to a {@link PowerHandler} to change. A
 * handler may also attach its own extra keys (for example a column mask) for a UI to read.
 */
export type PowerObject = PowerFlags & { [extra: string]: unknown };

/**
 * Defaults of every switch, exactly as the reference framework declares them: everything on except
 * export and import.
 */
export const DEFAULT_POWER: Readonly<PowerFlags> = Object.freeze({
  add: true,
  delete: true,
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

/** What a power handler is told about the request it decides for. */
export interface PowerHandlerContext {
  /** The user the power is computed for. */
  user: { id: number; account: string; isAdmin?: boolean | undefined };
  /** The model's name. */
  model: string;
}

/** A power handler as a plain function: change `power` in place; the return value is ignored. */
export type PowerHandlerFn = (power: PowerObject, context: PowerHandlerContext) => void | Promise<void>;

/**
 * Changes a model's power at run time, after the declared flags and menu grants are applied.
 * Either a function or an object with a `handler` method (the shape of the reference framework's
 * `PowerHandler` class). Declared `ai: false` and `cellEdit: false` stay off whatever it does.
 */
export type PowerHandler = PowerHandlerFn | { handler: PowerHandlerFn };

/** A model's declared power: any subset of the flags, plus an optional handler. */
export type PowerDeclaration = Partial<PowerFlags> & { powerHandler?: PowerHandler | undefined };

/** Calls a handler in either of its two shapes. */
export function runPowerHandler(handler: PowerHandler, power: PowerObject, context: PowerHandlerContext): void | Promise<void> {
  return typeof handler === 'function' ? handler(power, context) : handler.handler(power, context);
}
