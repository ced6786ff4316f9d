import { randomBytes } from 'node:crypto';
import type { EphemeralStore } from '@fw/token';
import { randomCaptchaText, renderCaptchaPng } from './captcha-image.js';
import { loginError } from './error-codes.js';

const MARK = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Captchas: an image per mark, its answer kept in the {@link EphemeralStore} for a short time and
 * consumed by the first check, right or wrong.
 */
export class Captchas {
  readonly #store: EphemeralStore;
  readonly #ttlMs: number;

  constructor(store: EphemeralStore, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /**
   * A new captcha for `mark` (a client-chosen identifier; a fresh one is made when absent). A
   * second request for the same mark replaces the first answer.
   * @throws {FwError} `CAPTCHA_MARK_INVALID` for a malformed mark.
   */
  async issue(mark?: string): Promise<{ mark: string; png: Buffer }> {
    const id = mark ?? randomBytes(12).toString('base64url');
    this.checkMark(id);
    const text = randomCaptchaText();
    await this.#store.set(`captcha:${id}`, text.toLowerCase(), this.#ttlMs);
    return { mark: id, png: renderCaptchaPng(text) };
  }

  /**
   * Checks the shape of a client-chosen mark.
   * @throws {FwError} `CAPTCHA_MARK_INVALID` for a malformed mark.
   */
  checkMark(mark: string): void {
    if (!MARK.test(mark)) throw loginError('CAPTCHA_MARK_INVALID');
  }

  /** True when `answer` matches the captcha of `mark` (case-insensitive); the captcha is used up either way. */
  async check(mark: unknown, answer: unknown): Promise<boolean> {
    if (typeof mark !== 'string' || !MARK.test(mark) || typeof answer !== 'string') return false;
    const expected = await this.#store.take(`captcha:${mark}`);
    return expected !== undefined && expected === answer.trim().toLowerCase();
  }
}
