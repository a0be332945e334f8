/**
 * "Send to Several Agents…" and the compare view (issue 20): one prompt to two or more agents (or
 * one agent twice), each in a worktree of its own; a panel that shows per agent its status, time,
 * tokens and cost, the files it changed with their diffs side by side, and the exit code of a test
 * command the person named, run in each worktree when its turn ends. "Keep This One" applies that
 * worktree to the main folder and offers to discard the others.
 */
import * as vscode from 'vscode';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TextDecoder } from 'node:util';
import * as z from 'zod';
import { text } from '../../common/untrustedText';
import { boardLine } from '../../acp/session/board';
import type { SessionController } from '../../acp/sessionController';
import { compareFile, type CompareEntry, type CompareView } from '../../worktrees/compare';
import { runWorktreeTest, testPromptWords, testRunMode } from '../../worktrees/testSandbox';
import type { SandboxPlan, SandboxProfile } from '../../sandbox/profile';
import { realOr } from '../../sandbox/runtime';
import type { SpawnPlan } from '../../terminals/command';
import type { WorktreeFrom } from '../../worktrees/worktrees';
import type { ApplyReport, WorktreeCenter } from '../worktrees';
import { makeNonce, renderSessionHtml } from '../session/html';
import type { CompareHostMessage } from './protocol';
import { beforeUri, serveBefore } from '../beforeDocs';
import { fileEncoding } from '../../config/vscodeSettings';

const MessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('keep'), worktreeId: z.string().regex(/^[0-9a-f]{8}$/) }),
  z.object({ type: z.literal('openDiff'), worktreeId: z.string().regex(/^[0-9a-f]{8}$/), rel: z.string().min(1).max(4096) }),
  z.object({ type: z.literal('showSession'), sessionKey: z.string().min(1).max(100) }),
]);

/** What comparisons need from the app. */
export interface CompareHost {
  extensionUri: vscode.Uri;
  worktrees: WorktreeCenter;
  startSession(agentId: string, cwd: string, from: WorktreeFrom): Promise<string>;
  prompt(key: string, text: string): Promise<{ stopReason: string }>;
  session(key: string): SessionController | undefined;
  closeSession(key: string): Promise<void>;
  show(key: string): void;
  /** The environment agents get (the test command finds the same tools). */
  env(): NodeJS.ProcessEnv;
  /**
   * Where the sandbox stands for commands contained in `roots` (`Sandboxes.plan`): the test command
   * runs in that profile, as the session's sandboxed commands do.
   */
  sandbox(roots: readonly string[]): Promise<SandboxPlan>;
  /** The wrapper that runs a plan inside `profile`, or throws and runs nothing (`Sandboxes.wrapper`). */
  wrapper(profile: SandboxProfile): (plan: SpawnPlan) => Promise<SpawnPlan>;
  /** Records a command the person ran (the test command), in the audit: its result and how it ran (`sandboxed <profile hash>`, `off`, `unsandboxed`, `refused`). */
  audit(sessionKey: string, command: string, cwd: string, result: string, sandbox: string): void;
  log(message: string): void;
}

/** One comparison and its panel. */
interface Running {
  view: CompareView;
  panel?: vscode.WebviewPanel;
  done: Promise<void>;
}

/** Owns the comparisons of this window. */
export class CompareCenter implements vscode.Disposable {
  private readonly compares = new Map<string, Running>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stop = new AbortController();

  constructor(private readonly host: CompareHost) {
    // The base side of a worktree file's diff: that file at the commit the worktree started from.
    this.disposables.push(
      serveBefore('worktree', async (ref) => {
        const core = await this.host.worktrees.worktrees();
        if (!core.get(ref.id)) return undefined;
        // Decoded as the editor decodes the file on the right (its BOM, else files.encoding).
        const text = await core.baseText(ref.id, ref.rel, fileEncoding(vscode.Uri.file(path.join(core.get(ref.id)!.dir, ref.rel))));
        return text ?? '';
      }),
    );
  }

  /** A comparison's current state (a copy). */
  get(id: string): CompareView | undefined {
    const c = this.compares.get(id);
    return c ? structuredClone(c.view) : undefined;
  }

  /** Resolves when every agent of comparison `id` has ended its turn and its test has run. */
  async settled(id: string): Promise<CompareView | undefined> {
    await this.compares.get(id)?.done;
    return this.get(id);
  }

  /**
   * How a test command would run in the worktrees of `cwd`'s repository, in words, for the prompt
   * that asks for it (each worktree's own profile is shown on its card).
   */
  async testPromptWords(cwd: string): Promise<string> {
    return testPromptWords(await this.host.sandbox([cwd]), realOr(cwd), os.homedir());
  }

  /**
   * Starts a session per agent, each in a new worktree of `cwd`'s repository, sends `prompt` to
   * all, and opens the compare view. @returns the comparison's id at once; {@link settled} waits.
   * @throws Error when `cwd` cannot have worktrees (the reason), or fewer than two agents are named.
   */
  async start(agentIds: readonly string[], prompt: string, cwd: string, opts: { testCommand?: string; from?: WorktreeFrom } = {}): Promise<string> {
    if (agentIds.length < 2) throw new Error('A comparison needs two or more agents (the same agent twice counts).');
    const checked = await this.host.worktrees.check(cwd);
    if (!checked.ok) throw new Error(`No comparison here: ${checked.reason}.`);
    const id = randomBytes(4).toString('hex');
    const view: CompareView = { id, prompt, ...(opts.testCommand ? { testCommand: opts.testCommand } : {}), entries: [] };
    const running: Running = { view, done: Promise.resolve() };
    this.compares.set(id, running);
    // One after another: `git worktree add` takes the repository's lock.
    for (const agentId of agentIds) {
      const key = await this.host.startSession(agentId, cwd, opts.from ?? 'head');
      const s = this.host.session(key)!.state;
      view.entries.push({ sessionKey: key, worktreeId: s.worktree!.id, agentId, agentName: s.agentName, branch: s.worktree!.branch, status: 'ready', startedAt: Date.now(), usage: '', files: [], ...(opts.testCommand ? { test: { state: 'waiting' as const } } : {}) });
    }
    // Each card says how its test will run before it runs (it is said again, as it ran, after).
    if (opts.testCommand) {
      for (const e of view.entries) {
        const cwd = this.host.session(e.sessionKey)?.state.cwd;
        if (cwd && e.test) e.test.sandbox = testRunMode(await this.host.sandbox([cwd]), os.homedir()).words;
      }
    }
    this.open(running);
    running.done = Promise.all(view.entries.map((e) => this.run(running, e, prompt, opts.testCommand))).then(async () => {
      // Read once more when every test has ended: the sandbox removes the empty placeholders it
      // mounted over read-only names only once none of its commands runs, so a test that ended
      // while another ran was read with them.
      if (!opts.testCommand) return;
      for (const e of view.entries) await this.readFiles(e);
      this.post(running);
    });
    return id;
  }

  /** One agent's turn, then its files and its test. */
  private async run(c: Running, e: CompareEntry, prompt: string, testCommand: string | undefined): Promise<void> {
    const session = this.host.session(e.sessionKey);
    const follow = session?.onDidChange(() => this.refresh(c, e));
    try {
      e.startedAt = Date.now();
      await this.host.prompt(e.sessionKey, prompt);
    } catch (err) {
      e.error = err instanceof Error ? err.message : String(err);
    } finally {
      e.endedAt = Date.now();
      follow?.dispose();
    }
    await this.readFiles(e);
    this.refresh(c, e);
    if (testCommand && e.test && !this.stop.signal.aborted) {
      const w = (await this.host.worktrees.worktrees()).get(e.worktreeId);
      const cwd = this.host.session(e.sessionKey)?.state.cwd ?? w?.cwd;
      if (cwd) {
        // The agent's code runs: in the profile of the session's own sandboxed commands, its worktree folder the root.
        const mode = testRunMode(await this.host.sandbox([cwd]), os.homedir());
        e.test = { state: 'running', sandbox: mode.words };
        this.post(c);
        const r = await runWorktreeTest(testCommand, cwd, mode, { wrapper: (p) => this.host.wrapper(p), env: this.host.env(), signal: this.stop.signal });
        e.test = { state: 'done', exitCode: r.exitCode, output: r.output, ms: r.ms, ...(r.stopped ? { stopped: r.stopped } : {}), ...(r.refused !== undefined ? { refused: r.refused } : {}), sandbox: r.words };
        this.host.audit(e.sessionKey, testCommand, cwd, r.result, r.sandbox);
        // The test run may have written files too: the diffs shown are what Keep This One would apply.
        await this.readFiles(e);
      }
    }
    this.post(c);
  }

  /** The files a worktree changed, with their diffs. */
  private async readFiles(e: CompareEntry): Promise<void> {
    try {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const asText = (b: Buffer | null): string | null | undefined => {
        if (b === null) return null;
        if (b.includes(0)) return undefined;
        try {
          return decoder.decode(b);
        } catch {
          return undefined;
        }
      };
      const changes = await (await this.host.worktrees.worktrees()).changes(e.worktreeId);
      e.files = changes.map((f) => compareFile(f.rel, asText(f.before), asText(f.after)));
    } catch (err) {
      e.error = `Its changes could not be read: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  private refresh(c: Running, e: CompareEntry): void {
    const s = this.host.session(e.sessionKey)?.state;
    if (s) {
      const line = boardLine(s);
      e.status = line.statusText;
      e.waiting = line.waiting;
      e.usage = line.usage;
    }
    this.post(c);
  }

  /**
   * Keep This One: applies worktree `worktreeId` of comparison `id` to the main folder (see
   * {@link WorktreeCenter.apply}), then discards the other agents' worktrees and closes their
   * sessions when the person confirms (`discardOthers` from the API: without asking).
   */
  async keep(id: string, worktreeId: string, discardOthers?: boolean): Promise<ApplyReport> {
    const c = this.compares.get(id);
    const kept = c?.view.entries.find((e) => e.worktreeId === worktreeId);
    if (!c || !kept) throw new Error('That comparison or agent is no longer here.');
    const report = await this.host.worktrees.apply(worktreeId);
    kept.outcome = 'kept';
    this.post(c);
    const others = c.view.entries.filter((e) => e !== kept && e.outcome !== 'discarded');
    if (!others.length) return report;
    const yes =
      discardOthers ??
      (await vscode.window.showWarningMessage(text`Kept ${kept.agentName}'s work. Discard the other ${others.length === 1 ? 'worktree' : `${others.length} worktrees`} (${others.map((o) => o.branch).join(', ')}) and ${others.length === 1 ? 'its branch' : 'their branches'}?`, { modal: true }, 'Discard')) === 'Discard';
    if (yes) {
      for (const o of others) {
        if (this.host.session(o.sessionKey)) await this.host.closeSession(o.sessionKey);
        await this.host.worktrees.discard(o.worktreeId);
        o.outcome = 'discarded';
      }
      this.post(c);
    }
    return report;
  }

  private open(c: Running): void {
    const root = vscode.Uri.joinPath(this.host.extensionUri, 'dist', 'webview');
    const panel = vscode.window.createWebviewPanel('agentSwitchboard.compare', 'Compare agents', vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true });
    panel.webview.html = renderSessionHtml({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'compare.js')).toString(),
      codiconCssUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicon.css')).toString(),
      title: 'Compare agents',
    });
    c.panel = panel;
    const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
      const parsed = MessageSchema.safeParse(raw);
      if (!parsed.success) return this.host.log('Compare view: ignored a malformed message.');
      const m = parsed.data;
      try {
        if (m.type === 'ready') this.post(c);
        else if (m.type === 'keep') await this.keep(c.view.id, m.worktreeId);
        else if (m.type === 'showSession') this.host.show(m.sessionKey);
        else if (m.type === 'openDiff') await this.openDiff(c, m.worktreeId, m.rel);
      } catch (err) {
        void vscode.window.showErrorMessage(text`${err instanceof Error ? err.message : String(err)}`);
      }
    });
    panel.onDidDispose(() => {
      sub.dispose();
      c.panel = undefined;
    });
  }

  /** A file's whole diff: the worktree's base ↔ the worktree now (only files the comparison lists). */
  private async openDiff(c: Running, worktreeId: string, rel: string): Promise<void> {
    const e = c.view.entries.find((x) => x.worktreeId === worktreeId);
    if (!e?.files.some((f) => f.rel === rel)) return;
    const w = (await this.host.worktrees.worktrees()).get(worktreeId);
    if (!w) return;
    const right = vscode.Uri.file(path.join(w.dir, rel));
    const left = beforeUri(right.fsPath, { of: 'worktree', id: worktreeId, rel });
    await vscode.commands.executeCommand('vscode.diff', left, right, text`${rel}: base ↔ ${e.agentName} (${e.branch})`);
  }

  private post(c: Running): void {
    if (c.panel) void c.panel.webview.postMessage({ type: 'snapshot', compare: c.view } satisfies CompareHostMessage);
  }

  dispose(): void {
    this.stop.abort();
    for (const c of this.compares.values()) c.panel?.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}
