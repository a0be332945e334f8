/**
 * How a comparison's test command runs in one worktree: it runs the agent's code (the worktree's
 * tests, scripts and packages), so it runs in the same sandbox profile as that session's sandboxed
 * commands — the worktree's folder and the temp folder writable, the same read denials and hosts —,
 * with `agentSwitchboard.sandbox: "ask"` sandboxed where the sandbox can run (and said plainly where
 * it cannot), with `"always"` not at all when the sandbox is unavailable, with `"off"` as a plain
 * shell. The card and the prompt say which, in the profile's own words. No `vscode`.
 */
import path from 'node:path';
import { INERT_MAX } from '../common/untrustedText';
import { describeProfile, describeUnsandboxed, profileHash, type SandboxPlan, type SandboxProfile } from '../sandbox/profile';
import type { SpawnPlan } from '../terminals/command';
import { runTestCommand, type TestRunOptions } from './testRun';

/** What a card says about how the test command runs: sandboxed or not, in one or two sentences. */
export interface TestSandboxWords {
  sandboxed: boolean;
  text: string;
}

/** How the test command runs in one worktree, from that session's {@link SandboxPlan}. */
export type TestRunMode =
  /** The sandbox is off, or unavailable under `ask`: a plain shell, as the card says. */
  | { run: 'plain'; words: TestSandboxWords; audit: 'off' | 'unsandboxed' }
  /** Inside `profile`, or not at all. */
  | { run: 'sandboxed'; profile: SandboxProfile; words: TestSandboxWords }
  /** `always` with the sandbox unavailable: not run. */
  | { run: 'refused'; words: TestSandboxWords };

/** The sentence for a test command run with the sandbox off. */
export const OFF_WORDS = 'Not sandboxed: agentSwitchboard.sandbox is "off", so the test command can read, write and reach what you can.';

/**
 * How the test command runs under `plan` (the session's plan for its worktree folder).
 * @param home the person's home folder, to shorten paths in the card (`~/…`).
 */
export function testRunMode(plan: SandboxPlan, home?: string): TestRunMode {
  if (plan.mode === 'off') return { run: 'plain', words: { sandboxed: false, text: OFF_WORDS }, audit: 'off' };
  if ('profile' in plan) return { run: 'sandboxed', profile: plan.profile, words: { sandboxed: true, text: describeProfile(plan.profile, home) } };
  const text = describeUnsandboxed(plan)!;
  return plan.mode === 'always' ? { run: 'refused', words: { sandboxed: false, text } } : { run: 'plain', words: { sandboxed: false, text }, audit: 'unsandboxed' };
}

/**
 * The sentence the prompt for a test command shows before any worktree exists: `plan` is the one of
 * the person's folder, whose worktrees the agents will get; its folder (`folder`, links resolved) is
 * named as "each agent's worktree", the rest of the profile as it is.
 */
export function testPromptWords(plan: SandboxPlan, folder: string, home?: string): string {
  const m = testRunMode(plan, home);
  if (m.run !== 'sandboxed') return m.words.text;
  const inFolder = (p: string) => p === folder || p.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
  // The names kept read-only are said by their last part, the same in the folder and its worktrees.
  const writeRoots = ['each agent\'s worktree', ...m.profile.writeRoots.filter((r) => !inFolder(r))];
  return describeProfile({ ...m.profile, writeRoots }, home).replace(/^Sandboxed when the editor runs it:/, 'Runs sandboxed in each worktree, as that session\'s commands do:');
}

/** One worktree's finished test run: what the compare view shows, and what the audit records. */
export interface WorktreeTestOutcome {
  exitCode: number | null;
  output: string;
  ms: number;
  stopped?: string;
  /** Not run: why (the sandbox could not be set up, or `always` with the sandbox unavailable). */
  refused?: string;
  words: TestSandboxWords;
  /** The audit's result: `ok`, `exit N`, `timeout`, `cancelled` or `refused`. */
  result: string;
  /** How it ran, for the audit: `off`, `unsandboxed`, `refused`, or `sandboxed <profile hash>`. */
  sandbox: string;
}

/**
 * Runs `command` in `cwd` as `mode` says: wrapped by `wrapper(profile)` when sandboxed (nothing
 * runs when the wrapper throws), a plain shell when the mode says so, nothing when refused.
 */
export async function runWorktreeTest(
  command: string,
  cwd: string,
  mode: TestRunMode,
  deps: { wrapper(profile: SandboxProfile): (plan: SpawnPlan) => Promise<SpawnPlan> } & Omit<TestRunOptions, 'wrap'>,
): Promise<WorktreeTestOutcome> {
  if (mode.run === 'refused') return { exitCode: null, output: mode.words.text, ms: 0, refused: mode.words.text, words: mode.words, result: 'refused', sandbox: 'refused' };
  const { wrapper, ...opts } = deps;
  const r = await runTestCommand(command, cwd, { ...opts, ...(mode.run === 'sandboxed' ? { wrap: wrapper(mode.profile) } : {}) });
  const sandbox = mode.run === 'sandboxed' ? `sandboxed ${profileHash(mode.profile)}` : mode.audit;
  const result = r.refused !== undefined ? 'refused' : (r.stopped ?? (r.exitCode === 0 ? 'ok' : `exit ${r.exitCode ?? r.signal}`));
  return { exitCode: r.exitCode, output: r.output, ms: r.ms, ...(r.stopped ? { stopped: r.stopped } : {}), ...(r.refused !== undefined ? { refused: r.refused } : {}), words: mode.words, result, sandbox };
}

/**
 * `words` as `count` pieces of whole words (the last ones possibly empty), each short enough that a
 * value of text`…` keeps it whole (it cuts each at {@link INERT_MAX}), for a prompt that must show
 * all of them; undefined when they do not fit.
 */
export function wholePieces(words: string, count = 4): string[] | undefined {
  const out: string[] = [''];
  for (const w of words.split(' ')) {
    const last = out[out.length - 1];
    const next = last ? `${last} ${w}` : w;
    if ([...next].length <= INERT_MAX) out[out.length - 1] = next;
    else if ([...w].length <= INERT_MAX && out.length < count) out.push(w);
    else return undefined;
  }
  while (out.length < count) out.push('');
  return out;
}
