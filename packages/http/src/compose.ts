import type { Middleware } from 'koa';
import koaCompose from 'koa-compose';

/**
 * Middleware run in order as one (koa-compose): each one's `next` is the following one, the last
 * one's `next` is the `next` the composed middleware was given.
 */
export function composeMiddleware(middleware: readonly Middleware[]): Middleware {
  return koaCompose([...middleware]) as Middleware;
}
