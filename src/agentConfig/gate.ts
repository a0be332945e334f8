/**
 * The start gate for a repository's agent configuration: before an agent process starts in a
 * folder, scan what that agent would take from the repository, ask the person when it would run
 * something or skip asking and they have not allowed exactly these contents for this workspace,
 * and hand back how the agent starts (see {@link startPlan}).
 *
 * No `vscode`: the question and the stored consents come in through {@link ConsentPort}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { agentKindOf } from './kinds';
import { consentText, startPlan, NO_PLAN, residualFindings, type AgentStartPlan } from './plan';
import { scanAgentConfig, type AgentConfigScan } from './scan';

/** The person's answer: allow these contents for the workspace, start without them, or do not start. */
export type ConsentAnswer = 'allow' | 'without' | 'cancel';

/** What the gate needs from its host. */
export interface ConsentPort {
  /** Whether the person allowed configuration with this hash in this workspace. */
  allowed(hash: string): boolean;
  /** Remembers, for this workspace, that the person allowed configuration with this hash. */
  remember(hash: string): Promise<void> | void;
  /**
   * Asks the person, showing `text` whole. `canAllow` false: the text says why it cannot be
   * allowed, and only "without" and "cancel" are offered. `withoutLeaves`: parts that still act
   * when the agent starts without the rest (the answer "without" must say so).
   */
  ask(q: { agentName: string; root: string; text: string; files: string[]; parts: number; canAllow: boolean; withoutLeaves: number }): Promise<ConsentAnswer>;
}

/** Thrown when the person chose not to start the agent. */
export class AgentConfigDeclinedError extends Error {
  constructor(agentName: string, why = 'you declined this repository\'s agent configuration') {
    super(`${agentName} was not started: ${why}.`);
    this.name = 'AgentConfigDeclinedError';
  }
}

/** The agent as the gate needs it. */
export interface GatedAgent {
  name: string;
  command: string;
  resolvedCommand?: string;
  args: readonly string[];
  /** Where the definition comes from; `demo`: the product's own demo agent. */
  source?: string;
}

/** Instruction files Claude reads from the project, given back as instructions when settings are off. */
const CLAUDE_INSTRUCTIONS = ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md'];
const MAX_INSTRUCTIONS = 64 * 1024;

/**
 * Scans `cwd` for `agent`'s repository configuration and decides how it starts. With `ask` false
 * (a short-lived process to list sessions or log in) nobody is asked: what is not allowed is
 * switched off. @throws {AgentConfigDeclinedError} when the person cancels.
 */
export async function prepareAgentStart(agent: GatedAgent, cwd: string, port: ConsentPort, opts: { ask: boolean }): Promise<AgentStartPlan> {
  // The product's own demo agent reads no repository configuration.
  if (agent.source === 'demo') return NO_PLAN;
  const kind = agentKindOf(agent.resolvedCommand ?? agent.command, agent.args);
  const scan = scanAgentConfig(cwd, kind);
  const instructions = kind === 'claude-agent-acp' || kind === 'claude-code-acp' ? readInstructions(cwd) : undefined;
  // Nothing found is no consent: an agent whose repository parts can be switched off starts
  // without them unless these exact contents were allowed (what the scan missed, or what lies in
  // folders above, stays off too).
  if (!scan.findings.length) return startPlan(scan, false, instructions);
  if (port.allowed(scan.hash)) return startPlan(scan, true);
  if (!opts.ask) return startPlan(scan, false, instructions);
  const answer = await port.ask(question(scan, agent.name));
  if (answer === 'cancel') throw new AgentConfigDeclinedError(agent.name);
  if (answer === 'allow' && !scan.unshowable) {
    // What is allowed is what was shown: a file changed while the question was open is not.
    const again = scanAgentConfig(cwd, kind);
    if (again.hash !== scan.hash) throw new AgentConfigDeclinedError(agent.name, 'its configuration changed while you were asked; start it again to see the new one');
    await port.remember(scan.hash);
    return startPlan(scan, true);
  }
  return startPlan(scan, false, instructions);
}

/** The question for {@link ConsentPort.ask}. */
export function question(scan: AgentConfigScan, agentName: string): Parameters<ConsentPort['ask']>[0] {
  return {
    agentName,
    root: scan.root,
    text: consentText(scan, agentName),
    files: [...new Set(scan.findings.map((f) => f.file))],
    parts: scan.findings.length,
    canAllow: !scan.unshowable,
    withoutLeaves: residualFindings(scan).length,
  };
}

/** The project's Claude instruction files, each headed by its name; undefined when there are none. */
function readInstructions(cwd: string): string | undefined {
  const parts: string[] = [];
  let total = 0;
  for (const rel of CLAUDE_INSTRUCTIONS) {
    try {
      const abs = path.join(cwd, rel);
      if (!fs.statSync(abs).isFile()) continue;
      const text = fs.readFileSync(abs, 'utf8');
      if (total + text.length > MAX_INSTRUCTIONS) break;
      total += text.length;
      parts.push(`Contents of ${rel} (project instructions, checked into the codebase):\n\n${text}`);
    } catch {
      // Absent or unreadable: nothing to hand on.
    }
  }
  return parts.length ? parts.join('\n\n') : undefined;
}
