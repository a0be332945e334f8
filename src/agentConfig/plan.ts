/**
 * How an agent starts given what {@link scanAgentConfig} found and whether the person allowed it:
 * the session `_meta`, environment and mode that switch the repository's parts off, the notices
 * that say what was switched off and what still acts, and the text of the question.
 *
 * Pure; no `vscode`, no file system (the instructions file is read by the caller).
 */
import type { AgentKind } from './kinds';
import type { AgentConfigFinding, AgentConfigScan } from './scan';

/** What the agent process and its session start with. */
export interface AgentStartPlan {
  /** Variables added to the agent's environment. */
  env: Record<string, string>;
  /** `_meta` of `session/new`, `session/load` and `session/resume`; undefined for none. */
  sessionMeta?: Record<string, unknown>;
  /** The mode the session is switched to right after it starts when the agent took another one from the repository. */
  modeId?: string;
  /** Sentences for the session, in words. */
  notices: { severity: 'info' | 'warning'; text: string }[];
}

/** An empty plan: nothing switched off, nothing to say. */
export const NO_PLAN: AgentStartPlan = Object.freeze({ env: {}, notices: [] }) as AgentStartPlan;

/**
 * Parts that stay in effect even when the agent starts without the repository's configuration,
 * because the agent reads them itself, outside what its switch turns off. `undefined`: the part
 * is off with its source's switch (or its source has none, said elsewhere).
 */
function stillActs(kind: AgentKind, f: AgentConfigFinding): string | undefined {
  if (!f.off) return `${kindName(kind)} offers no way to start without it`;
  const settings = f.file === '.claude/settings.json' || f.file === '.claude/settings.local.json';
  if (kind === 'claude-code-acp' && settings && f.where.startsWith('permissions.') && f.where !== 'permissions.defaultMode') {
    return 'claude-code-acp applies these rules to its own tools whatever the session options say; what those tools write or run reaches Switchboard without a permission request, and the gate holds or refuses it as an unrequested effect';
  }
  return undefined;
}

/** True when a part is switched off by means other than its source's switch (a mode change). */
function offByMode(kind: AgentKind, f: AgentConfigFinding): boolean {
  return kind === 'claude-agent-acp' && f.where === 'permissions.defaultMode';
}

function kindName(kind: AgentKind): string {
  return kind === 'other' ? 'This agent (not one Switchboard recognizes)' : kind;
}

/** The findings that would still act if the agent starts without them. */
export function residualFindings(scan: AgentConfigScan): { finding: AgentConfigFinding; why: string }[] {
  const out: { finding: AgentConfigFinding; why: string }[] = [];
  for (const f of scan.findings) {
    const why = stillActs(scan.kind, f);
    if (why) out.push({ finding: f, why });
  }
  return out;
}

/**
 * The plan for starting `scan.kind` in `scan.root`. `allowed`: the person allowed exactly these
 * contents (the hash) for this workspace; then nothing is switched off. `instructions`: the
 * project's instruction files (CLAUDE.md) to hand a Claude agent in the system prompt, since the
 * switch that turns the settings off also stops it reading them.
 */
export function startPlan(scan: AgentConfigScan, allowed: boolean, instructions?: string): AgentStartPlan {
  if (!scan.findings.length) return allowed ? NO_PLAN : switchesOnly(scan.kind, instructions);
  const files = [...new Set(scan.findings.map((f) => f.file))].join(', ');
  if (allowed) return { env: {}, notices: [{ severity: 'info', text: `Started with this repository's agent configuration, which you allowed for this workspace (${files}).` }] };
  const plan: AgentStartPlan = { env: {}, notices: [] };
  const claude = scan.kind === 'claude-agent-acp' || scan.kind === 'claude-code-acp';
  // Every part with a switch gets it, even one the agent partly reads around (said below).
  const switchable = scan.findings.filter((f) => f.off);
  const switchedOff = switchable.filter((f) => !stillActs(scan.kind, f));
  Object.assign(plan, switchesOnly(scan.kind, instructions), { notices: plan.notices });
  if (scan.kind === 'gemini') plan.env.GEMINI_CLI_TRUST_WORKSPACE = 'false';
  if (switchable.length && claude) {
    plan.sessionMeta = { claudeCode: { options: { settingSources: ['user'] } }, ...(instructions ? { systemPrompt: { append: instructions } } : {}) };
    if (scan.findings.some((f) => offByMode(scan.kind, f))) plan.modeId = 'default';
  }
  if (switchable.length && scan.kind === 'gemini') plan.env.GEMINI_CLI_TRUST_WORKSPACE = 'false';
  if (switchable.length && scan.kind === 'opencode') {
    Object.assign(plan.env, { OPENCODE_DISABLE_PROJECT_CONFIG: '1', OPENCODE_DISABLE_EXTERNAL_SKILLS: '1', OPENCODE_DISABLE_CLAUDE_CODE_SKILLS: '1' });
  }
  if (switchedOff.length) {
    const how = [...new Set(switchedOff.map((f) => (offByMode(scan.kind, f) ? `${f.off}; the mode it sets is switched back to "default"` : f.off!)))].join('; ');
    const parts = switchedOff.map((f) => `${f.file} (${f.where}: ${f.kind})`).join(', ');
    const kept = claude && instructions ? ' CLAUDE.md is still given to the agent, as instructions.' : '';
    plan.notices.push({ severity: 'warning', text: `Started without this repository's agent configuration, which you have not allowed for this workspace: ${parts}. Switched off with ${how}.${kept}` });
  }
  for (const { finding: f, why } of residualFindings(scan)) {
    plan.notices.push({ severity: 'warning', text: `Still in effect, not switched off: ${f.file} (${f.where}: ${f.kind}). ${why}.` });
  }
  return plan;
}

/**
 * The switches of `kind` with nothing to say: Claude and OpenCode start without their repository's
 * parts whether or not the scan found any (a part the scan cannot see stays off too). Claude is
 * handed the project's instruction files instead.
 */
function switchesOnly(kind: AgentKind, instructions?: string): AgentStartPlan {
  if (kind === 'claude-agent-acp' || kind === 'claude-code-acp') return { env: {}, notices: [], sessionMeta: { claudeCode: { options: { settingSources: ['user'] } }, ...(instructions ? { systemPrompt: { append: instructions } } : {}) } };
  // Gemini CLI is not switched when nothing was found: an untrusted folder also refuses the modes
  // the person may choose (Auto Edit), and what it reads is the session folder's, which is scanned.
  if (kind === 'opencode') return { env: { OPENCODE_DISABLE_PROJECT_CONFIG: '1', OPENCODE_DISABLE_EXTERNAL_SKILLS: '1', OPENCODE_DISABLE_CLAUDE_CODE_SKILLS: '1' }, notices: [] };
  return { env: {}, notices: [] };
}

/**
 * The full text the person is asked about: every part, whole, with its file, what it does and
 * whether starting without it switches it off. Nothing is cut; see {@link AgentConfigScan.unshowable}
 * for when allowing is refused instead.
 */
export function consentText(scan: AgentConfigScan, agentName: string): string {
  const lines = [
    `${agentName} is about to start in ${scan.root}.`,
    `This repository ships configuration that makes the agent run commands or skip asking for permission. Below is every part of it, exactly as written.`,
    '',
  ];
  const residual = new Map(residualFindings(scan).map((r) => [r.finding, r.why]));
  scan.findings.forEach((f, i) => {
    const fate = residual.get(f) ? `NOT switched off if you start without it: ${residual.get(f)}.` : `Switched off if you start without it (${offByMode(scan.kind, f) ? 'mode set back to "default"' : f.off}).`;
    lines.push(`${i + 1}. ${f.file} — ${f.where} — ${f.kind}`, `   ${fate}`, '', fence(f.text), '');
  });
  if (scan.unshowable) lines.push(`Not everything can be shown (${scan.unshowable}), so it cannot be allowed.`);
  lines.push(`Content hash: ${scan.hash}`);
  return lines.join('\n');
}

/** A Markdown fence that the text itself cannot close. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}text\n${text}\n${f}`;
}
