import { FwError, type ModelDefinition, type PowerFlag, type PowerObject } from '@fw/core';

/**
 * The AI gate: run it before anything else an AI tool does on a model, and before any
 * administrator bypass. It reads the definition itself, not an effective power, so no role,
 * handler or admin status gets past a declared `ai: false`.
 *
 * @throws {FwError} 403 `AI_DISABLED`, `AI access is disabled for this model: <Model>`.
 * @example
 * aiGate(Book); // first line of every AI tool but the model list
 */
export function aiGate(model: Pick<ModelDefinition, 'name' | 'power'>): void {
  if (model.power.ai === false) {
    throw new FwError('AI_DISABLED', `AI access is disabled for this model: ${model.name}`, { extra: { model: model.name } });
  }
}

/**
 * Whether AI tools may see the model at all (the AI model list leaves out models for which this
 * is false). Reads the declared `ai` switch, like {@link aiGate}.
 */
export function isAiVisible(model: Pick<ModelDefinition, 'power'>): boolean {
  return model.power.ai !== false;
}

/**
 * Requires every flag in `flags` to be `true` in `power` (an effective power from
 * `resolvePower` or `PowerResolver`). Anything but `true` denies, so a missing key or a
 * non-boolean value never grants.
 *
 * @param modelName named in the error message.
 * @throws {FwError} 403 `POWER_DENIED`, `Not permitted: <flag> on <Model>`, for the first flag
 *   that is off.
 * @example
 * assertPower(power, ['copy', 'add'], 'Book');
 */
export function assertPower(power: Readonly<Partial<PowerObject>>, flags: PowerFlag | readonly PowerFlag[], modelName: string): void {
  const denied = firstDenied(power, flags);
  // The model and the flag are fields of the body too, so a client branches on them, not on the text.
  if (denied !== undefined) throw new FwError('POWER_DENIED', `Not permitted: ${denied} on ${modelName}`, { extra: { model: modelName, flag: denied } });
}

/** The first of `flags` that is not `true` in `power`, or `undefined` when all are. */
export function firstDenied(power: Readonly<Partial<PowerObject>>, flags: PowerFlag | readonly PowerFlag[]): PowerFlag | undefined {
  if (typeof flags === 'string') return power[flags] === true ? undefined : flags;
  for (const flag of flags) if (power[flag] !== true) return flag;
  return undefined;
}
