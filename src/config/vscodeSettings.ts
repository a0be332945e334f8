/**
 * The one typed reader of Agent Switchboard's settings (the only caller of `getConfiguration` for
 * our section). Values are validated here; a bad value falls back to the default and is reported.
 *
 * Every value is read per layer (`inspect()`), never merged by the editor: the gate, the agent list
 * and the settings that send data elsewhere come from the person's own settings, and a workspace may
 * only tighten them (see `settingsLayers.ts` for the classification). In a remote window (code-server's
 * is one) `globalValue` is the person's user settings merged with their remote user settings, as
 * far as the setting's declared scope lets each apply; workspace and folder values are separate.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import * as z from 'zod';
import { parse as parseJsonc } from 'jsonc-parser';
import { readRegularFileOrNull } from '../fs/safeRead';
import { mergeFlag, mergeLevel, mergePolicy, SETTING_CLASSES, userOnly, type EffectivePolicy, type Layered, type WorkspaceLayer } from './settingsLayers';
import type { SandboxSettings } from '../sandbox/sandboxes';
import type { EffectPattern } from '../policy/grants';

const SECTION = 'agentSwitchboard';

/** What workspace settings did to the person's settings, one sentence each, for the UI. */
export interface WorkspaceSettingsReport {
  /** Stricter values a workspace added, e.g. `write: ask → deny (workspace settings)`. */
  tightened: string[];
  /** Looser values (or user-only settings) a workspace tried, which were ignored. */
  ignored: string[];
}

/** Settings as the rest of the extension sees them. */
export interface Settings {
  /** Raw `agentSwitchboard.agents` of the person's user settings; validated by `resolveAgents`. */
  agents: unknown;
  /** `initialize` timeout in milliseconds. */
  initializeTimeoutMs: number;
  /** After Stop, milliseconds before Restart Agent is offered (`cancelGraceSeconds`). */
  cancelGraceMs: number;
  showNotifications: boolean;
  /** Show agents' changes still to review in the editor itself (`review.inline`). */
  inlineReview: boolean;
  /** Open the file the agent of the session on screen changes (`review.followEdits`). */
  followEdits: boolean;
  /** Defaults of the effect gate (`agentSwitchboard.policy`): the person's, tightened by the workspace. */
  policy: EffectivePolicy;
  /** Give agents the editor's own MCP server. */
  editorMcpServer: boolean;
  /** Hand agents and MCP servers the OTLP variables of our receiver. */
  receiveAgentSpans: boolean;
  /** The OTLP/HTTP endpoint to export spans to; empty: none. */
  exportEndpoint: string;
  /** Where the agent registry is read; empty: the public one. */
  registryUrl: string;
  /** The sandbox of agents' commands (issue 21): mode (a workspace only tightens), hosts and bubblewrap (the person's). */
  sandbox: SandboxSettings;
  /** Allow rules for sandboxed commands that need no prompt (`sandboxAutoApprove`, the person's). */
  sandboxAutoApprove: EffectPattern[];
  /** Start stdio MCP servers sandboxed (a workspace may turn it on). */
  sandboxMcpServers: boolean;
  /** What the workspace tightened, and what it tried and was ignored. */
  workspace: WorkspaceSettingsReport;
}

const TimeoutSchema = z.number().min(1).max(600);

/** The person's value and the workspace layers of one setting (`key` without the section). */
function layers(key: string): { user: unknown; workspace: WorkspaceLayer[] } {
  const i = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(key);
  const workspace: WorkspaceLayer[] = [];
  if (i?.workspaceValue !== undefined) workspace.push({ where: 'workspace settings', value: i.workspaceValue });
  // In a single-folder window the folder's settings are the workspace settings (read above); in a
  // multi-root workspace each folder may have its own.
  if (vscode.workspace.workspaceFile) {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      const v = vscode.workspace.getConfiguration(SECTION, f.uri).inspect<unknown>(key)?.workspaceFolderValue;
      if (v !== undefined) workspace.push({ where: 'workspace folder settings', value: v });
    }
  }
  return { user: i?.globalValue, workspace };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

/** Reads the current settings; `report` receives one sentence per invalid value. */
export function readSettings(report: (problem: string) => void): Settings {
  const workspace: WorkspaceSettingsReport = { tightened: [], ignored: [] };
  const take = <T>(l: Layered<T>): T => {
    l.problems.forEach(report);
    workspace.tightened.push(...l.tightened);
    workspace.ignored.push(...l.ignored);
    return l.value;
  };
  const p = layers('policy');
  const policy = take(mergePolicy(p.user, p.workspace));
  const a = layers('agents');
  const agents = take(userOnly('agentSwitchboard.agents', a.user, a.workspace.map((l) => ({ ...l, value: l.value === undefined || (Array.isArray(l.value) && l.value.length === 0) ? undefined : l.value }))));
  const flag = (key: string, fallback: boolean, strict: boolean) => {
    const l = layers(key);
    return take(mergeFlag(`${SECTION}.${key}`, l.user, fallback, strict, l.workspace));
  };
  const user = (key: string) => {
    const l = layers(key);
    return str(take(userOnly(`${SECTION}.${key}`, l.user, l.workspace)));
  };
  const c = vscode.workspace.getConfiguration(SECTION);
  const timeout = TimeoutSchema.safeParse(c.get('initializeTimeoutSeconds', 60));
  if (!timeout.success) report('agentSwitchboard.initializeTimeoutSeconds must be a number from 1 to 600; using 60.');
  const grace = TimeoutSchema.safeParse(c.get('cancelGraceSeconds', 10));
  if (!grace.success) report('agentSwitchboard.cancelGraceSeconds must be a number from 1 to 600; using 10.');
  const sm = layers('sandbox');
  const mode = take(mergeLevel(`${SECTION}.sandbox`, ['off', 'ask', 'always'] as const, sm.user, 'off', sm.workspace));
  const words = (key: string): string[] => {
    const l = layers(key);
    const v = take(userOnly(`${SECTION}.${key}`, l.user, l.workspace));
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      report(`${SECTION}.${key} must be a list of strings; it was ignored.`);
      return [];
    }
    return v.map((x) => x.trim()).filter((x) => x !== '').slice(0, 200);
  };
  const sandbox: SandboxSettings = { mode, allowedHosts: words('sandboxAllowedHosts'), bwrapPath: user('sandboxBubblewrapPath') };
  const sandboxAutoApprove = words('sandboxAutoApprove').map((commandPrefix): EffectPattern => ({ kind: 'command', commandPrefix, sandboxed: true }));
  return {
    policy: sandboxAutoApprove.length ? { ...policy, allow: [...policy.allow, ...sandboxAutoApprove] } : policy,
    sandbox,
    sandboxAutoApprove,
    sandboxMcpServers: flag('sandboxMcpServers', false, true),
    agents,
    initializeTimeoutMs: (timeout.success ? timeout.data : 60) * 1000,
    cancelGraceMs: (grace.success ? grace.data : 10) * 1000,
    showNotifications: flag('showNotifications', true, true),
    inlineReview: flag('review.inline', true, true),
    followEdits: c.get<boolean>('review.followEdits', true) !== false,
    editorMcpServer: flag('editorMcpServer', true, false),
    receiveAgentSpans: flag('tracing.receiveAgentSpans', true, false),
    exportEndpoint: user('tracing.exportEndpoint'),
    registryUrl: user('registry.url'),
    workspace,
  };
}

/** `readSettings` for callers that need one value and report problems to `log`. */
export function readSetting<K extends keyof Settings>(key: K, log?: (problem: string) => void): Settings[K] {
  return readSettings(log ?? (() => undefined))[key];
}

/**
 * User-only settings written in the workspace's own files, which the editor itself drops because
 * of their scope (`application`): `inspect()` does not show them, so the files are read to say
 * where they belong. Reads `.vscode/settings.json` of each folder and the `.code-workspace` file
 * (regular files of at most 1 MB; anything unreadable is skipped: this only feeds a message).
 * @returns one sentence per setting and place, e.g. `agentSwitchboard.agents (workspace settings)`.
 */
export async function userOnlySettingsInWorkspaceFiles(): Promise<string[]> {
  const keys = Object.entries(SETTING_CLASSES).filter(([, c]) => c.cls === 'user').map(([k]) => k);
  const files: { file: string; where: string; inSettings: boolean }[] = [];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme === 'file') files.push({ file: path.join(f.uri.fsPath, '.vscode', 'settings.json'), where: vscode.workspace.workspaceFile ? 'workspace folder settings' : 'workspace settings', inSettings: false });
  }
  const wf = vscode.workspace.workspaceFile;
  if (wf?.scheme === 'file') files.push({ file: wf.fsPath, where: 'workspace settings', inSettings: true });
  const found = new Set<string>();
  for (const { file, where, inSettings } of files) {
    let text: string;
    try {
      const r = await readRegularFileOrNull(file, { maxBytes: 1024 * 1024 });
      if (!r) continue;
      text = r.bytes.toString('utf8');
    } catch {
      continue;
    }
    const json = parseJsonc(text, [], { allowTrailingComma: true }) as unknown;
    const root = inSettings && json && typeof json === 'object' ? (json as { settings?: unknown }).settings : json;
    if (!root || typeof root !== 'object') continue;
    for (const k of keys) if (Object.prototype.hasOwnProperty.call(root, k) && !isEmpty((root as Record<string, unknown>)[k])) found.add(`${k} (${where}); it is read only from your user settings`);
  }
  return [...found];
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Fires `listener` when any Agent Switchboard setting changes (any layer, so edits apply live). */
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
