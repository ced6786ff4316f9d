import type { DefaultContext, DefaultState, Middleware, ParameterizedContext } from 'koa';
import { FwDefinitionError, FwError, POWER_FLAGS, type PowerFlag, type PowerObject } from '@fw/core';
import { firstDenied } from './gates.js';

/** Options of {@link requirePower}. */
export interface RequirePowerOptions<StateT = DefaultState, ContextT = DefaultContext> {
  /**
   * The model name used in error messages.
   * @default `ctx.params.fw` when a router set it, else the text `this model`
   */
  modelName?: (ctx: ParameterizedContext<StateT, ContextT>) => string | undefined;
}

/** The `{fw}` route parameter, when a router (such as @koa/router) put one on the context. */
function routeModelName(ctx: object): string | undefined {
  const params = (ctx as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const fw = (params as { fw?: unknown }).fw;
  return typeof fw === 'string' && fw !== '' ? fw : undefined;
}

/**
 * A Koa middleware that lets the request through only when every flag in `flags` is on in the
 * effective power that `resolve` returns (typically `PowerResolver.resolve` for the route's model
 * and `ctx.state.fw.user`). It answers by itself, in the Fw error body
 * `{ error: { code, message } }`, without needing an error middleware:
 *
 * - 404 `MODEL_NOT_FOUND` when `resolve` returns `undefined` (no such model);
 * - 403 `POWER_DENIED`, `Not permitted: <flag> on <Model>`, naming the first flag that is off.
 *
 * Errors thrown by `resolve` (or below the guard) propagate unchanged to the host's error
 * handling. The guard keeps nothing on `ctx`; a `resolve` that wants the route to reuse the power
 * can put it on `ctx.state` itself (resolution through `PowerResolver` is cached anyway).
 *
 * @param flags one flag, or several that must all be on (e.g. `['copy', 'add']`).
 * @throws {FwDefinitionError} at creation, for no flags, an unknown flag or a `resolve` that is
 *   not a function.
 * @example
 * router.post('/fw-api/data/modify/:fw/delete',
 *   requirePower('delete', (ctx) => {
 *     const model = registry.get(ctx.params.fw);
 *     return model && resolver.resolve(model, ctx.state.fw.user, grantsOf(ctx));
 *   }),
 *   deleteRows);
 */
export function requirePower<StateT = DefaultState, ContextT = DefaultContext>(
  flags: PowerFlag | readonly PowerFlag[],
  resolve: (ctx: ParameterizedContext<StateT, ContextT>) => Promise<PowerObject | undefined> | PowerObject | undefined,
  options: RequirePowerOptions<StateT, ContextT> = {},
): Middleware<StateT, ContextT> {
  const required: readonly PowerFlag[] = Object.freeze(typeof flags === 'string' ? [flags] : [...flags]);
  if (required.length === 0) throw new FwDefinitionError('requirePower.flags', 'name at least one power flag');
  for (const flag of required) {
    if (!(POWER_FLAGS as readonly string[]).includes(flag)) {
      throw new FwDefinitionError('requirePower.flags', `unknown power flag ${JSON.stringify(flag)} (known: ${POWER_FLAGS.join(', ')})`);
    }
  }
  if (typeof resolve !== 'function') throw new FwDefinitionError('requirePower.resolve', 'must be a function (ctx) => PowerObject | undefined');
  const modelName = options.modelName;
  if (modelName !== undefined && typeof modelName !== 'function') throw new FwDefinitionError('requirePower.modelName', 'must be a function (ctx) => string');

  return async function requirePower(ctx, next) {
    const power = await resolve(ctx);
    const name = modelName?.(ctx) ?? routeModelName(ctx);
    let error: FwError | undefined;
    if (power === undefined) {
      error = new FwError('MODEL_NOT_FOUND', name === undefined ? undefined : `Unknown model: ${name}`, name === undefined ? {} : { extra: { model: name } });
    } else {
      const denied = firstDenied(power, required);
      if (denied !== undefined)
        error = new FwError('POWER_DENIED', `Not permitted: ${denied} on ${name ?? 'this model'}`, { extra: { ...(name === undefined ? {} : { model: name }), flag: denied } });
    }
    if (error !== undefined) {
      ctx.status = error.status;
      ctx.body = error.toBody();
      return;
    }
    await next();
  };
}
