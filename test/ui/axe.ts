// axe-core in the page under test (issue 20 §3). The UI's content security policy refuses inline
// scripts, so axe is not added as a <script>: its source is evaluated through the DevTools
// protocol (page.evaluate), which the policy does not govern, and the page stays as shipped.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe finding, as much as a person needs to find and fix it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/** Runs axe on the page (or the part matching `include`) and answers its violations of `impacts`. */
export async function axeViolations(page: Page, { include, impacts = ['serious', 'critical'] }: { include?: string; impacts?: string[] } = {}): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(source);
  const context = include ? JSON.stringify({ include: [[include]] }) : 'document';
  const violations = (await page.evaluate(
    `axe.run(${context}, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })) })))`,
  )) as AxeViolation[];
  return violations.filter((v) => v.impact !== null && impacts.includes(v.impact));
}

/** The violations, readable in a test failure: rule, impact, help, and each element with why. */
export function formatViolations(where: string, violations: AxeViolation[]): string {
  const lines = [`${violations.length} serious or critical axe violation(s) on ${where}:`];
  for (const v of violations) {
    lines.push(`- ${v.id} (${v.impact}): ${v.help} <${v.helpUrl}>`);
    for (const n of v.nodes.slice(0, 8)) {
      lines.push(`    ${n.target.join(' ')}  ${n.html.slice(0, 160)}`);
      if (n.failureSummary) lines.push(...n.failureSummary.split('\n').map((l) => `      ${l}`));
    }
    if (v.nodes.length > 8) lines.push(`    … and ${v.nodes.length - 8} more`);
  }
  return lines.join('\n');
}
