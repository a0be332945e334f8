/** Shared helpers for the in-editor tests: the API, agent settings, and waiting on session state. */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SessionState, SwitchboardApi } from '../../src/api';

/** The prompt 96-sessions leaves in an open session and the reload run (97-reload) looks for. */
export const RELOAD_MARKER = 'RELOAD-MARKER-1: please remember this session';

export const EXTENSION_ID = 'agent-switchboard.agent-switchboard';

export async function api(): Promise<SwitchboardApi> {
  const ext = vscode.extensions.getExtension<SwitchboardApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  return ext.activate();
}

/**
 * Runs an Agent Switchboard command with arguments the way another extension must: through the API.
 * `vscode.commands.executeCommand` with arguments is what a `command:` link does, and the commands
 * that act refuse it (issue 16, finding 1).
 */
export async function runCommand<T = unknown>(command: string, ...args: unknown[]): Promise<T> {
  return (await api()).runCommand<T>(command, ...args);
}

export function extensionPath(): string {
  return vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
}

export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('the tests need an open folder');
  return f.uri.fsPath;
}

/** An empty folder `name` in the workspace, made anew (what an earlier run left there is removed). */
export function freshWorkspaceDir(name: string): string {
  const dir = path.join(workspaceDir(), name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Adds agent definitions to the user settings (replacing earlier test agents with the same id). */
export async function setAgents(agents: { id: string; name: string; command: string; args?: string[]; env?: Record<string, string | null> }[]): Promise<void> {
  await vscode.workspace.getConfiguration('agentSwitchboard').update('agents', agents, vscode.ConfigurationTarget.Global);
}

/** A scripted agent: the demo agent of the installed extension with one of its scenarios. */
export function scenarioAgent(id: string, scenario: string, env: Record<string, string> = {}) {
  return {
    id,
    name: `Scenario ${scenario}`,
    command: process.execPath,
    args: [path.join(extensionPath(), 'dist', 'demo-agent.js')],
    env: { ELECTRON_RUN_AS_NODE: '1', SWITCHBOARD_DEMO_SCENARIO: scenario, ...env },
  };
}

/** Resolves with the session state once `predicate` holds (checked on every change). */
export function waitForState(a: SwitchboardApi, key: string, predicate: (s: SessionState) => boolean, what: string, timeoutMs = 60_000): Promise<SessionState> {
  return new Promise((resolve, reject) => {
    const now = a.session(key);
    if (now && predicate(now)) return resolve(now);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; state: ${JSON.stringify(a.session(key))?.slice(0, 2000)}`));
    }, timeoutMs);
    const sub = a.onDidChangeSession((e) => {
      if (e.key === key && predicate(e.state)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(structuredClone(e.state) as SessionState);
      }
    });
  });
}

/** Answers every permission request of `key` with the first option of `kind` while subscribed. */
export function autoAnswer(a: SwitchboardApi, key: string, kind: 'allow_once' | 'reject_once', answered: string[] = []): vscode.Disposable {
  const sub = a.onDidChangeSession((e) => {
    if (e.key !== key) return;
    for (const p of e.patches) {
      if (p.op !== 'permission' || p.permission.state !== 'waiting') continue;
      const option = p.permission.options.find((o) => o.kind === kind) ?? p.permission.options[0];
      answered.push(`${p.permission.toolCallId}:${option.optionId}`);
      // Answer outside the change notification, as a person clicking would.
      setTimeout(() => a.answerPermission(key, p.permission.permissionId, option.optionId), 10);
    }
  });
  return new vscode.Disposable(() => sub.dispose());
}

/**
 * Types into `editor` as a person would. `TextEditor.edit` returns false when the document's
 * version moved under it (e.g. a late reload of a file just written); a person's keystroke would
 * simply land on the newer text, so the edit is retried a few times.
 */
export async function personEdit(editor: vscode.TextEditor, callback: (b: vscode.TextEditorEdit) => void): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if (await editor.edit(callback)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`could not type into ${editor.document.uri.fsPath}`);
}

/** Polls `get` until it returns something truthy (resolved with it), or fails after `ms`. */
export async function until<T>(what: string, get: () => T | undefined | false | null, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
