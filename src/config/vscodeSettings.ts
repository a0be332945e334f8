/**
 * The one typed reader of Agent Switchboard's settings (the only caller of `getConfiguration`).
 * Values are validated here; a bad value falls back to the default and is reported once.
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import type { PolicyDefaults } from '../policy/gate';
import { EffectPatternSchema } from '../policy/grants';

const SECTION = 'agentSwitchboard';

/** Settings as the rest of the extension sees them. */
export interface Settings {
  /** Raw `agentSwitchboard.agents`; validated by `resolveAgents`. */
  agents: unknown;
  /** `initialize` timeout in milliseconds. */
  initializeTimeoutMs: number;
  showNotifications: boolean;
  /** Defaults of the effect gate (`agentSwitchboard.policy`). */
  policy: PolicyDefaults;
}

const PolicySchema = z.object({
  write: z.enum(['ask', 'allow', 'deny']).default('ask'),
  command: z.enum(['ask', 'allow', 'deny']).default('ask'),
  dryRun: z.boolean().default(false),
  deny: z.array(EffectPatternSchema).default([]),
  allow: z.array(EffectPatternSchema).default([]),
  protectedTargets: z.enum(['ask', 'deny']).default('ask'),
  grantMinutes: z.number().min(0).max(60 * 24 * 365).default(0),
});

const TimeoutSchema = z.number().min(1).max(600);

/** Reads the current settings; `report` receives one sentence per invalid value. */
export function readSettings(report: (problem: string) => void): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const timeout = TimeoutSchema.safeParse(c.get('initializeTimeoutSeconds', 60));
  if (!timeout.success) report('agentSwitchboard.initializeTimeoutSeconds must be a number from 1 to 600; using 60.');
  const policy = PolicySchema.safeParse(c.get('policy', {}) ?? {});
  // An invalid policy fails closed: every effect asks, and the deny rules we could not read are reported.
  if (!policy.success) report(`agentSwitchboard.policy is invalid (${policy.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); every effect asks until it is fixed.`);
  return {
    policy: policy.success ? policy.data : { write: 'ask', command: 'ask', dryRun: false, deny: [], allow: [], protectedTargets: 'ask', grantMinutes: 0 },
    agents: c.get('agents', []),
    initializeTimeoutMs: (timeout.success ? timeout.data : 60) * 1000,
    showNotifications: c.get<boolean>('showNotifications', true),
  };
}

/** Fires `listener` when any Agent Switchboard setting changes. */
export function onDidChangeSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener();
  });
}

/** The editor's configured encoding for a file (`files.encoding`, resource-scoped), e.g. `gbk`. */
export function fileEncoding(uri: vscode.Uri): string | undefined {
  const e = vscode.workspace.getConfiguration('files', uri).get<string>('encoding');
  return typeof e === 'string' && e ? e : undefined;
}
