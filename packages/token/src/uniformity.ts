import { TOKEN_ALPHABET } from './generate.js';

/**
 * Pearson's chi-square statistics of the characters of a set of tokens against the uniform
 * distribution over {@link TOKEN_ALPHABET}: one over every character, one per position.
 */
export interface UniformityReport {
  /** Characters counted. */
  characters: number;
  /** Chi-square over all characters (61 degrees of freedom). */
  overall: number;
  /** Chi-square of each position (61 degrees of freedom each). */
  perPosition: number[];
}

/**
 * Limits for 61 degrees of freedom. A fair generator exceeds 200 with probability ~1e-16 and
 * 160 with probability ~1e-10 (per position). A `byte % 62` generator makes the first 8
 * characters 5/4 as likely as the rest, which over 1.6M characters scores ~10,000 overall and
 * ~650 per position over 100,000 tokens: far beyond either limit.
 */
export const UNIFORMITY_LIMITS = { overall: 200, perPosition: 160 } as const;

function chiSquare(counts: Uint32Array, total: number): number {
  const expected = total / counts.length;
  let sum = 0;
  for (const count of counts) sum += (count - expected) ** 2 / expected;
  return sum;
}

/**
 * Counts the characters of `tokens` and scores them against a uniform distribution.
 *
 * @throws {Error} when a token holds a character outside the alphabet (a separate failure).
 */
export function measureUniformity(tokens: readonly string[]): UniformityReport {
  const size = TOKEN_ALPHABET.length;
  const index = new Int16Array(128).fill(-1);
  for (let i = 0; i < size; i++) index[TOKEN_ALPHABET.charCodeAt(i)] = i;
  const overall = new Uint32Array(size);
  const positions: Uint32Array[] = [];
  let characters = 0;
  for (const token of tokens) {
    for (let p = 0; p < token.length; p++) {
      const code = token.charCodeAt(p);
      const i = code < 128 ? index[code]! : -1;
      if (i < 0) throw new Error(`character ${JSON.stringify(token[p])} is outside the token alphabet`);
      overall[i]!++;
      (positions[p] ??= new Uint32Array(size))[i]!++;
      characters++;
    }
  }
  return {
    characters,
    overall: chiSquare(overall, characters),
    perPosition: positions.map((counts) =>
      chiSquare(
        counts,
        counts.reduce((a, b) => a + b, 0),
      ),
    ),
  };
}

/** Failures of `report` against {@link UNIFORMITY_LIMITS}, as readable lines (empty when it passes). */
export function uniformityFailures(report: UniformityReport): string[] {
  const failures: string[] = [];
  if (report.overall > UNIFORMITY_LIMITS.overall) {
    failures.push(`chi-square over ${report.characters} characters is ${report.overall.toFixed(1)} (limit ${UNIFORMITY_LIMITS.overall})`);
  }
  report.perPosition.forEach((value, p) => {
    if (value > UNIFORMITY_LIMITS.perPosition) {
      failures.push(`chi-square at position ${p} is ${value.toFixed(1)} (limit ${UNIFORMITY_LIMITS.perPosition})`);
    }
  });
  return failures;
}
