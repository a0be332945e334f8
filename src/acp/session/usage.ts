/**
 * Token usage as a session shows it: the context window (`usage_update`: tokens in context, the
 * window's size, the session's cumulative cost) and one turn's tokens (the `usage` of a
 * `session/prompt` answer, unstable in ACP v1 / SDK 2.4.0). The two are kept apart on purpose: a
 * turn's input tokens are not the context size, and the meter reads only `usage_update`.
 *
 * Every number comes from the agent (or from a journal on disk): it is taken only when it is a
 * finite, non-negative number, and a currency is plain text of bounded length. Pure: no `vscode`,
 * no DOM; the webview's header uses {@link usageMeter} to draw the meter.
 * Spec: ACP v1 `usage_update` (schema 1.21 `UsageUpdate`, `Cost`), unstable `PromptResponse.usage`.
 */

/** The context window of a session, from the agent's last valid `usage_update`. */
export interface UsageView {
  /** Tokens currently in context. */
  used: number;
  /** The context window's size in tokens; 0 means the agent does not know it (no meter). */
  size: number;
  /** The session's cumulative cost: `amount` in `currency` (an ISO 4217 code or a unit like "credits"). */
  cost?: { amount: number; currency: string };
}

/** One turn's tokens, from the `usage` of its `session/prompt` answer. */
export interface TurnUsageView {
  inputTokens: number;
  outputTokens: number;
  totalTokens?: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
}

/** Longest currency text kept ("USD", "credits", …); longer is cut. */
export const MAX_CURRENCY_CHARS = 16;

/** A finite, non-negative number, else undefined. */
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * The view of a `usage_update` (already parsed by the SDK live, but not when replayed from a
 * journal). @returns undefined when `used` or `size` is not a finite, non-negative number; a cost
 * whose amount or currency is not usable is left out, the rest is kept.
 */
export function usageFromUpdate(u: unknown): UsageView | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const r = u as { used?: unknown; size?: unknown; cost?: unknown };
  const used = count(r.used);
  const size = count(r.size);
  if (used === undefined || size === undefined) return undefined;
  const c = r.cost as { amount?: unknown; currency?: unknown } | null | undefined;
  const amount = count(c?.amount);
  const currency = typeof c?.currency === 'string' ? plainText(c.currency).slice(0, MAX_CURRENCY_CHARS) : '';
  return { used, size, ...(amount !== undefined && currency ? { cost: { amount, currency } } : {}) };
}

/**
 * The view of a prompt answer's `usage`. @returns undefined when there is none or when its input
 * or output tokens are not finite, non-negative numbers; optional counts that are not are dropped.
 */
export function turnUsageFrom(u: unknown): TurnUsageView | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const r = u as Record<string, unknown>;
  const inputTokens = count(r.inputTokens);
  const outputTokens = count(r.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const out: TurnUsageView = { inputTokens, outputTokens };
  for (const k of ['totalTokens', 'thoughtTokens', 'cachedReadTokens', 'cachedWriteTokens'] as const) {
    const n = count(r[k]);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

/** What the header draws for a session's context window. */
export type UsageMeter =
  | { hidden: true }
  | {
      hidden: false;
      /** Share of the window in use, 0–100 (clamped: an agent may report more than the window). */
      percent: number;
      /** True when `used` is above `size` (the meter is full and warns). */
      over: boolean;
      /** "12.3k / 200k tokens (6 %)". */
      text: string;
      /** "0.42 USD", when the agent sent a cost. */
      cost?: string;
      /** The exact numbers, for the tooltip and the accessible name. */
      detail: string;
    };

/** The meter for `u`: hidden without usage or when the agent does not know the window's size. */
export function usageMeter(u: UsageView | undefined): UsageMeter {
  if (!u || !(u.size > 0)) return { hidden: true };
  const ratio = u.used / u.size;
  const over = ratio > 1;
  const percent = Math.min(100, Math.max(0, ratio * 100));
  const shown = over ? '>100' : String(Math.round(percent));
  const cost = u.cost ? formatCost(u.cost) : undefined;
  const detail = `Context: ${u.used.toLocaleString('en-US')} of ${u.size.toLocaleString('en-US')} tokens${over ? ' (more than the context window)' : ''}${cost ? `; session cost ${cost}` : ''}`;
  return { hidden: false, percent, over, text: `${formatTokens(u.used)} / ${formatTokens(u.size)} tokens (${shown} %)`, ...(cost ? { cost } : {}), detail };
}

/** A turn's tokens as its end marker says them: "1.2k in · 340 out". */
export function turnUsageText(u: TurnUsageView): string {
  const parts = [`${formatTokens(u.inputTokens)} in`, `${formatTokens(u.outputTokens)} out`];
  if (u.thoughtTokens) parts.push(`${formatTokens(u.thoughtTokens)} thought`);
  if (u.cachedReadTokens) parts.push(`${formatTokens(u.cachedReadTokens)} cached`);
  return `${parts.join(' · ')} tokens`;
}

/** 950 → "950", 12_345 → "12.3k", 200_000 → "200k", 1_500_000 → "1.5M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${trim(n / 1000)}k`;
  if (n < 1_000_000_000) return `${trim(n / 1_000_000)}M`;
  return `${trim(n / 1_000_000_000)}G`;
}

function trim(x: number): string {
  return x >= 100 ? String(Math.round(x)) : String(Number(x.toFixed(1)));
}

/** "0.42 USD": the amount with at most 4 decimals (no currency formatting: the code is the agent's text). */
function formatCost(c: { amount: number; currency: string }): string {
  const digits = c.amount !== 0 && c.amount < 0.01 ? 4 : 2;
  return `${c.amount.toFixed(digits)} ${c.currency}`;
}

/** Text with control and bidi-control characters removed (a currency is shown, never interpreted). */
function plainText(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
}
