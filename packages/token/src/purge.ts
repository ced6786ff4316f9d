import { FwDefinitionError } from '@fw/core';

/** Anything that can drop its expired entries: an `EphemeralStore`, a `FwTokenService`, a `TokenStore` bound to a clock. */
export interface Purgeable {
  /** Removes expired entries; resolves how many. Absent on stores whose backend expires entries by itself (Redis). */
  purgeExpired?(): Promise<number>;
}

/** Options of {@link schedulePurge}. */
export interface PurgeScheduleOptions {
  /** Time between two purges, in milliseconds. @default 600_000 (10 minutes) */
  intervalMs?: number;
  /**
   * Called with an error of one purge (a database that is down, say); the timer keeps running
   * and tries again at the next interval.
   * @default ignores the error
   */
  onError?: (error: unknown) => void;
}

/** A running purge timer, from {@link schedulePurge}. */
export interface PurgeSchedule {
  /** Stops the timer; a purge already under way finishes. Calling it again does nothing. */
  stop(): void;
  /** True until {@link stop} is called. */
  readonly active: boolean;
  /** Purges every target now (skipped, resolving 0, while a purge is already running); resolves how many entries went. */
  run(): Promise<number>;
}

/**
 * Purges expired entries of `targets` ({@link Purgeable}s; others, such as the Redis stores that
 * expire entries by themselves, are skipped) every `intervalMs`: the SQL and memory ephemeral stores
 * (failed-login counters, captcha answers) and token tables keep expired rows until asked, and an
 * unauthenticated route such as `GET /code-img` writes one per call. The timer is `unref`'d, so
 * it never keeps the process alive, and a run never overlaps the previous one. `fwAdmin` starts
 * one and its `close()` stops it.
 *
 * @throws {FwDefinitionError} for an `intervalMs` that is not a whole number from 10 ms to 1 day.
 * @example
 * const purge = schedulePurge([ephemeral, tokens], { intervalMs: 5 * 60_000, onError: (e) => app.emit('error', e) });
 * // on shutdown:
 * purge.stop();
 */
export function schedulePurge(targets: readonly object[], options: PurgeScheduleOptions = {}): PurgeSchedule {
  const intervalMs = options.intervalMs ?? 600_000;
  if (typeof intervalMs !== 'number' || !Number.isInteger(intervalMs) || intervalMs < 10 || intervalMs > 86_400_000) {
    throw new FwDefinitionError('schedulePurge.intervalMs', `must be a whole number of milliseconds from 10 to 86400000, got ${String(intervalMs)}`);
  }
  const onError = options.onError ?? (() => undefined);
  const purgeable = targets.filter((t): t is Required<Purgeable> => typeof (t as Purgeable | null)?.purgeExpired === 'function');
  let running: Promise<number> | undefined;

  async function purgeAll(): Promise<number> {
    let total = 0;
    for (const target of purgeable) {
      try {
        total += await target.purgeExpired();
      } catch (error) {
        onError(error);
      }
    }
    return total;
  }

  const run = (): Promise<number> => {
    if (running) return Promise.resolve(0);
    running = purgeAll().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  let active = true;
  return {
    stop() {
      active = false;
      clearInterval(timer);
    },
    get active() {
      return active;
    },
    run,
  };
}
