/**
 * Compatibility rules: the few places where Agent Switchboard answers one named agent (by the
 * `agentInfo` it sends in its `initialize` answer: name and a semver version range) differently
 * from the spec, because that agent cannot handle the spec-correct answer. Every other agent, an
 * agent that sends no `agentInfo`, and a version outside the range get the spec behaviour.
 *
 * A rule is data (agent, versions, what it changes, why, what was verified, the upstream reports);
 * each is applied where its answer is produced and marks that answer with
 * `_meta["agentSwitchboard/compatibilityRule"]` (the rule's id), so the protocol inspector and the
 * capability matrix show where it was applied. Pure; no `vscode`.
 * Spec: ACP v1 `fs/read_text_file` (https://agentclientprotocol.com/protocol/file-system), JSON-RPC
 * error -32002 (resource not found).
 */
import type * as acp from '@agentclientprotocol/sdk';
import { MetaKeys } from './extensions';

/** What every compatibility rule says about itself. */
interface CompatRuleBase {
  /** Stable id, shown in the inspector and the capability matrix. */
  id: string;
  /** The agent's `agentInfo.name`, compared exactly. */
  agent: string;
  /** Semver comparators, all of which must hold, e.g. `>=0.1.0 <0.62.0` (see {@link satisfiesRange}). */
  versions: string;
  /** What the agent gets instead of the spec behaviour, as a sentence. */
  changes: string;
  /** Why the spec behaviour fails with that agent, as a sentence. */
  why: string;
  /** What was checked, on which version, and how. */
  verified: string;
  /** Public reports of the failure. */
  upstream: readonly string[];
}

/** A rule that answers an error of `fs/read_text_file` with a result. */
export interface ReadAnswerRule extends CompatRuleBase {
  method: 'fs/read_text_file';
  /** The JSON-RPC error code (of that method's answer) the rule replaces. */
  errorCode: number;
  /** The result sent instead of that error. */
  answer: acp.ReadTextFileResponse;
}

/**
 * A rule that holds `session/load` back while the wall clock is still in the minute (UTC) in which
 * the session began, or the minute after the first `startWindowMs` of it.
 */
export interface LoadTimingRule extends CompatRuleBase {
  method: 'session/load';
  /** How long after our journal's creation the agent may still have been creating the session, in ms. */
  startWindowMs: number;
}

/** One compatibility rule. */
export type CompatRule = ReadAnswerRule | LoadTimingRule;

/** The rules, one a line of the table in README's "Known limits". */
export const COMPAT_RULES: readonly CompatRule[] = [
  {
    id: 'gemini-cli/missing-file-reads-empty',
    agent: 'gemini-cli',
    versions: '<0.62.0',
    method: 'fs/read_text_file',
    errorCode: -32002,
    answer: { content: '' },
    changes: 'A read of a file that does not exist is answered with empty text ({"content": ""}) instead of the error -32002 "Resource not found".',
    why:
      'gemini-cli reads a file before writing it (write_file, replace). Its bundled ACP connection rejects with the raw JSON-RPC error object, not an Error, so its check for a missing file (an Error whose message says "Resource not found", turned into code ENOENT) never matches and the write fails with "Error checking existing file". Empty text is the one answer it takes as "no content yet". The write itself still creates the file through fs/write_text_file, which refuses to replace a file that appeared meanwhile.',
    verified:
      'gemini-cli 0.61.0: read in its bundle (AcpFileSystemService.normalizeFileSystemError, getCorrectedFileContent, the connection\'s #handleResponse) and run against the fake model server (test/acp/gemini.test.ts, test/integration/36-gemini.test.ts). Versions from 0.62.0 on are not verified, so they get the spec answer until checked.',
    upstream: [
      'https://github.com/google-gemini/gemini-cli/issues/9280',
      'https://github.com/google-gemini/gemini-cli/issues/17588',
      'https://github.com/google-gemini/gemini-cli/pull/14190',
    ],
  },
  {
    id: 'gemini-cli/load-after-start-minute',
    agent: 'gemini-cli',
    versions: '<0.62.0',
    method: 'session/load',
    startWindowMs: 15_000,
    changes: 'session/load of a session is sent only once the minute (UTC) in which the session began has passed; until then the session says it waits.',
    why:
      'gemini-cli\'s session/load starts a new chat recording for the session before it reads the saved one. The recording\'s file is named by the current minute and the session id, so within the minute the session began it is the saved conversation\'s own file: the load overwrites it and then fails with -32603 "No previous sessions found for this project." (the conversation is lost for good). In a later minute the load replays the conversation.',
    verified:
      'gemini-cli 0.61.0: a load in the same minute failed as above; one after the minute turned replayed the session (test/integration/36-gemini.test.ts); read in its bundle (AcpSessionManager.loadSession, SessionSelector, getAllSessionFiles). 0.62.0 on: not verified.',
    upstream: ['https://github.com/google-gemini/gemini-cli/issues/28775'],
  },
];

/** A parsed `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]` version. */
interface Version {
  core: [number, number, number];
  pre: string[];
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(text: string): Version | undefined {
  const m = VERSION.exec(text.trim());
  if (!m) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

/** Semver precedence (https://semver.org §11): negative when `a` comes before `b`. */
function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i] - b.core[i];
  // A prerelease comes before its release; prerelease fields compare numerically or by ASCII.
  if (!a.pre.length || !b.pre.length) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * True when `version` satisfies every comparator of `range` (space-separated `>=`, `>`, `<=`, `<`,
 * `=` followed by a version). Prereleases compare by semver precedence, so `0.62.0-nightly.1` is
 * below `0.62.0`. A version or comparator that does not parse never satisfies.
 */
export function satisfiesRange(version: string, range: string): boolean {
  const v = parse(version);
  if (!v) return false;
  const comparators = range.trim().split(/\s+/).filter(Boolean);
  if (!comparators.length) return false;
  return comparators.every((c) => {
    const m = /^(>=|<=|>|<|=)?(.+)$/.exec(c);
    const bound = m && parse(m[2]);
    if (!m || !bound) return false;
    const d = compare(v, bound);
    switch (m[1] ?? '=') {
      case '>=': return d >= 0;
      case '>': return d > 0;
      case '<=': return d <= 0;
      case '<': return d < 0;
      default: return d === 0;
    }
  });
}

/**
 * The rules that apply to an agent, from its `initialize` `agentInfo`. None when it sent no
 * `agentInfo` (the spec answer for everyone we cannot name).
 */
export function compatRulesFor(agentInfo: Pick<acp.Implementation, 'name' | 'version'> | null | undefined, rules: readonly CompatRule[] = COMPAT_RULES): CompatRule[] {
  if (!agentInfo || typeof agentInfo.name !== 'string' || typeof agentInfo.version !== 'string') return [];
  return rules.filter((r) => r.agent === agentInfo.name && satisfiesRange(agentInfo.version, r.versions));
}

/**
 * What to answer instead of the error `err` that `fs/read_text_file` produced, under `rules`; undefined
 * when no rule changes it (the error then goes to the agent as it is). Only the rule's error code is
 * changed (-32002 for gemini-cli): a refused path, a file that is not text or cannot be read stays
 * an error for every agent.
 */
export function compatReadTextFileAnswer(rules: readonly CompatRule[], err: unknown): acp.ReadTextFileResponse | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'number') return undefined;
  const rule = rules.find((r): r is ReadAnswerRule => r.method === 'fs/read_text_file' && r.errorCode === code);
  if (!rule) return undefined;
  return { ...rule.answer, _meta: { ...rule.answer._meta, [MetaKeys.compatibilityRule]: rule.id } };
}

/** The compatibility rule an answer we sent was marked with (see {@link compatReadTextFileAnswer}), if any. */
export function compatRuleOf(result: unknown): string | undefined {
  const meta = (result as { _meta?: unknown } | null)?._meta;
  const id = meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[MetaKeys.compatibilityRule] : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * How long to hold `session/load` back under `rules` (see {@link LoadTimingRule}): the wait in ms and
 * the rule's id, or undefined when no rule applies or the minute has passed.
 * @param startedAt when the session began (our journal's creation), ms since the epoch.
 * @param now the current time, ms since the epoch.
 */
export function compatLoadDelay(rules: readonly CompatRule[], startedAt: number, now: number): { waitMs: number; ruleId: string } | undefined {
  const rule = rules.find((r): r is LoadTimingRule => r.method === 'session/load');
  if (!rule || !Number.isFinite(startedAt)) return undefined;
  const MINUTE = 60_000;
  // The session's file may be named by any minute from our start to the end of the start window.
  const lastMinute = Math.floor((startedAt + rule.startWindowMs) / MINUTE);
  if (Math.floor(now / MINUTE) > lastMinute) return undefined;
  // A second past the turn of that minute, so the two clocks cannot disagree about it.
  return { waitMs: (lastMinute + 1) * MINUTE + 1000 - now, ruleId: rule.id };
}
