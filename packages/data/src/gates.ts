// The power a data route needs before its body is looked at (issue 22 §5): one gate per route,
// checked by the mount's scope for HTTP and by DataService's untyped methods for everyone else, so
// the 403 a caller gets is the same whichever way they came. A gate also tells the OpenAPI
// description whether a model's declared power lets the route answer anything but 403.
import { FwError, type ModelDefinition, type PowerFlag, type PowerObject } from '@fw/core';
import { assertPower } from '@fw/power';

/** The flags a route needs, and the 403 it answers without them. */
export interface PowerGate {
  /** Whether `power` (a caller's, or a model's declared power) passes. */
  allows(power: Readonly<Partial<Record<PowerFlag, boolean>>>): boolean;
  /** Throws the route's 403 when `power` does not pass. */
  check(power: PowerObject, model: ModelDefinition): void;
}

/** Every one of `flags`; the refusal names the first one missing (`assertPower`). */
export function needs(flags: PowerFlag | readonly PowerFlag[]): PowerGate {
  const list: readonly PowerFlag[] = typeof flags === 'string' ? [flags] : flags;
  return {
    allows: (power) => list.every((flag) => power[flag] === true),
    check: (power, model) => assertPower(power, flags, model.name),
  };
}

/** Any one of `flags`; `refusal` is the 403 when none is held. */
export function anyOf(flags: readonly PowerFlag[], refusal: (model: ModelDefinition) => FwError): PowerGate {
  const allows = (power: Readonly<Partial<Record<PowerFlag, boolean>>>) => flags.some((flag) => power[flag] === true);
  return {
    allows,
    check: (power, model) => {
      if (!allows(power)) throw refusal(model);
    },
  };
}

/** The refusal `assertPower` gives for a missing `flag`. */
const denied = (flag: PowerFlag) => (model: ModelDefinition) => new FwError('POWER_DENIED', `Not permitted: ${flag} on ${model.name}`, { extra: { model: model.name, flag } });

const UI_FLAGS = ['query', 'add', 'edit', 'delete', 'viewDetails'] as const;

/** GET /build: any operation a UI offers. */
export const BUILD_GATE = anyOf(UI_FLAGS, (model) => new FwError('POWER_DENIED', `Not permitted: any operation on ${model.name}`));
/** The table query. */
export const QUERY_GATE = needs('query');
/** A reference field's candidates: whoever may fill in or filter on the field. */
export const REFERENCE_GATE = anyOf(['add', 'edit', 'query'], (model) => new FwError('POWER_DENIED', `Not permitted: add, edit or query on ${model.name}`));
/** One row: its details, or its edit form; the refusal names viewDetails. */
export const DETAILS_GATE = anyOf(['viewDetails', 'edit'], denied('viewDetails'));
export const ADD_GATE = needs('add');
export const EDIT_GATE = needs('edit');
export const DELETE_GATE = needs('delete');
/** The print page of one row. */
export const PRINT_GATE = needs('print');
/** A copy adds a row. */
export const COPY_GATE = needs(['copy', 'add']);
