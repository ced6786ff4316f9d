// Account names are identities people read: two accounts must never look alike on screen, and no
// account may carry characters that a database, a log line or a terminal treats specially
// (issue 10 §6: `admin` + U+200B was accepted as a second "admin").

// Characters with no visible glyph of their own that general categories do not catch: Hangul,
// halfwidth and Khitan fillers, the braille blank, the combining grapheme joiner, variation
// selectors and the Mongolian vowel separator (Cf in newer Unicode, Zs in older).
// The class lists combining and joining characters on purpose, one by one.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = /[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\uffa0\ufe00-\ufe0f\u{16fe4}\u{e0100}-\u{e01ef}]/u;
// Control (Cc), format (Cf: zero-width space and joiners, BOM, soft hyphen, bidi marks, embeddings,
// overrides and isolates, tags), surrogate halves (Cs), private use (Co), unassigned (Cn), and
// line / paragraph separators.
const FORBIDDEN_CATEGORY = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;
// Every space but the plain one looks like it, or like nothing.
const SPACE = /\p{Zs}/u;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The account in Unicode normalisation form C, so that `é` typed as one code point and as `e` +
 * combining accent name the same account. Login normalises what it receives before the lookup;
 * stored accounts are NFC already ({@link accountProblem} refuses any other form on writes).
 * Non-strings are returned unchanged.
 */
export function normalizeAccount<T>(account: T): T {
  return (typeof account === 'string' ? account.normalize('NFC') : account) as T;
}

/**
 * Why `account` cannot be an account name, or `undefined` when it can. Refused: control
 * characters (NUL, newlines, …), invisible and direction-changing characters (zero-width space and
 * joiners, BOM, soft hyphen, bidi marks, embeddings, overrides and isolates U+202A–202E and
 * U+2066–2069, fillers, variation selectors), unpaired surrogates, private-use and unassigned code
 * points, every space but U+0020, leading or trailing spaces, and text not in NFC. Length and
 * emptiness are left to the field's own rules; a non-string passes (the type check is elsewhere).
 *
 * @example
 * accountProblem('admin');        // undefined
 * accountProblem('admin\u200b');  // 'must not contain invisible or direction-changing characters (U+200B)'
 */
export function accountProblem(account: unknown): string | undefined {
  if (typeof account !== 'string') return undefined;
  for (const char of account) {
    if (/\p{Cc}/u.test(char)) return `must not contain control characters (${codePoint(char)})`;
    if (FORBIDDEN_CATEGORY.test(char) || INVISIBLE.test(char)) return `must not contain invisible or direction-changing characters (${codePoint(char)})`;
    if (char !== ' ' && SPACE.test(char)) return `must not contain spaces other than the plain space (${codePoint(char)})`;
  }
  if (account !== account.trim()) return 'must not begin or end with a space';
  if (account !== account.normalize('NFC')) return 'must be in Unicode normalisation form C';
  return undefined;
}
