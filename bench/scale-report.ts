// The tables bench/scale.bench.ts prints: one markdown table per database, request × size, with Fw
// and the bare route side by side, their ratio, and Fw's rate against its rate on the smallest table;
// with a peer framework measured (FW_SCALE_PEER=directus), its line and Fw / peer as well.
import type { LoadResult } from './lib.js';

/** A load run's summary; `p50` (median ms) is there for sequential runs. */
export type Measured = LoadResult & { p50?: number };

/** One request of the bench, measured on both sides at one size. */
export interface Cell {
  fw?: { one: Measured; ten: Measured };
  bare?: { one: Measured; ten: Measured };
  /** Fw's total on this request, and whether it said it was an estimate (undefined: the answer has no `totalIsEstimate`). */
  total?: { value: number; estimate: boolean | undefined };
  /** Why Fw's side was not measured (a feature missing on this build, an error answer). */
  fwNote?: string;
  /** Fw and the bare route answered different rows for the same page. */
  mismatch?: string;
  /** The peer framework (Directus) on the same request, when measured. */
  peer?: { one: Measured; ten: Measured };
  /** The count the peer answered with the page (its `meta`), for the console line. */
  peerTotal?: number;
  /** Why the peer's side was not measured (an error answer). */
  peerNote?: string;
  /** The peer answered other rows than Fw (or the bare route where Fw has no answer). */
  peerMismatch?: string;
}

/** A request's row of the table. */
export interface RequestSpec {
  id: string;
  label: string;
  /** Counted in the ≥ 0.8× goal at 10M (indexed requests that must not grow with the table). */
  goal: boolean;
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const ms = (r: Measured) => `${(r.p50 ?? r.mean) < 10 ? (r.p50 ?? r.mean).toFixed(2) : (r.p50 ?? r.mean).toFixed(0)} ms`;
const failed = (r: Measured) => (r.failed > 0 ? ` (${r.failed} failed)` : '');

/** `1.23 ms · 812/s`: the median of one connection, and requests per second with ten. */
function side(s: { one: Measured; ten: Measured } | undefined): string {
  if (!s) return '—';
  // autocannon counts the answers within the run: none means every request took longer than it.
  return `${ms(s.one)}${failed(s.one)} · ${s.ten.rps > 0 ? int(s.ten.rps) : '< 1'}/s${failed(s.ten)}`;
}

/** Short name of a size: 10k, 1M, 10M. */
export function sizeName(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}

/**
 * The markdown table of one database: for each request, four lines (Fw, bare, Fw / bare, Fw
 * against the smallest table) and Fw's total; a cell reads `median ms with 1 connection · req/s
 * with 10`.
 */
export function markdownTable(requests: RequestSpec[], sizes: number[], cells: Map<string, Map<number, Cell>>): string {
  const base = sizes[0]!;
  const lines = [`| request | | ${sizes.map(sizeName).join(' | ')} |`, `|---|---|${sizes.map(() => '---').join('|')}|`];
  for (const req of requests) {
    const row = (size: number) => cells.get(req.id)?.get(size) ?? {};
    lines.push(`| ${req.label} | Fw | ${sizes.map((s) => row(s).fwNote ?? side(row(s).fw)).join(' | ')} |`);
    lines.push(`| | bare | ${sizes.map((s) => side(row(s).bare)).join(' | ')} |`);
    lines.push(
      `| | Fw / bare | ${sizes
        .map((s) => {
          const { fw, bare, mismatch } = row(s);
          if (!fw || !bare || fw.ten.rps === 0 || bare.ten.rps === 0) return '—';
          // Both as speed: above 1 means Fw is faster.
          return `${(fw.ten.rps / bare.ten.rps).toFixed(2)}× (1 conn. ${((bare.one.p50 ?? bare.one.mean) / (fw.one.p50 ?? fw.one.mean)).toFixed(2)}×)${mismatch ? ' ⚠ rows differ' : ''}`;
        })
        .join(' | ')} |`,
    );
    if (sizes.some((s) => row(s).peer || row(s).peerNote)) {
      lines.push(`| | Directus | ${sizes.map((s) => row(s).peerNote ?? side(row(s).peer)).join(' | ')} |`);
      lines.push(
        `| | Fw / Directus | ${sizes
          .map((s) => {
            const { fw, peer, peerMismatch } = row(s);
            if (!fw || !peer || fw.ten.rps === 0 || peer.ten.rps === 0) return '—';
            return `${(fw.ten.rps / peer.ten.rps).toFixed(2)}× (1 conn. ${((peer.one.p50 ?? peer.one.mean) / (fw.one.p50 ?? fw.one.mean)).toFixed(2)}×)${peerMismatch ? ' ⚠ rows differ' : ''}`;
          })
          .join(' | ')} |`,
      );
    }
    lines.push(
      `| | Fw vs ${sizeName(base)} | ${sizes
        .map((s) => {
          const first = row(base).fw;
          const here = row(s).fw;
          if (!first || !here || first.ten.rps === 0) return '—';
          const ratio = here.ten.rps / first.ten.rps;
          return `${ratio.toFixed(2)}${req.goal && s !== base ? (ratio >= 0.8 ? ' ✓' : ' ✗') : ''}`;
        })
        .join(' | ')} |`,
    );
    lines.push(
      `| | Fw total | ${sizes
        .map((s) => {
          const t = row(s).total;
          if (!t) return '—';
          return t.estimate === undefined ? `${int(t.value)} (no totalIsEstimate)` : t.estimate ? `≈ ${int(t.value)} (estimate)` : `${int(t.value)} (exact)`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** The goal at 100,000 rows: Fw / bare on page 1 and a random page (the bare route stands in for a peer doing the count). */
export function peerLine(label: string, cells: Map<string, Map<number, Cell>>): string | undefined {
  const at = (id: string) => cells.get(id)?.get(100_000);
  const ratio = (c: Cell | undefined) => (c?.fw && c.bare && c.bare.ten.rps > 0 ? `${(c.fw.ten.rps / c.bare.ten.rps).toFixed(2)}×` : 'not measured');
  if (!at('page1') && !at('random')) return undefined;
  return `${label}, 100,000 rows, Fw / bare at 10 connections: page 1 with the total ${ratio(at('page1'))}, a random page ${ratio(at('random'))} (goal ≥ 10× on PostgreSQL)`;
}

/** The goal of issue 21 against Directus: Fw / Directus at 100,000 rows on page 1 and a random page, both with the total. */
export function directusLine(cells: Map<string, Map<number, Cell>>): string | undefined {
  const at = (id: string) => cells.get(id)?.get(100_000);
  if (!at('page1')?.peer && !at('random')?.peer) return undefined;
  const ratio = (c: Cell | undefined) => (c?.fw && c.peer && c.peer.ten.rps > 0 ? `${(c.fw.ten.rps / c.peer.ten.rps).toFixed(2)}×` : 'not measured');
  return `Fw / Directus at 100,000 rows (10 connections): page 1 ${ratio(at('page1'))}, random page ${ratio(at('random'))} (goal ≥ 10×)`;
}
