/**
 * One place a session is shown: the sidebar view or an editor tab. Holds which session it shows,
 * batches that session's patches (~16 ms) while it is visible, answers the page's `ready` and
 * `requestSnapshot` with a snapshot, and validates and carries out what the page asks.
 *
 * Protocol (protocol.ts): the webview posts `ready`, gets a `snapshot`, then `patches`. While hidden
 * nothing is posted; it gets a fresh snapshot when shown again, so hiding, moving or reloading the
 * page loses nothing.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { openCardDiff, openCardInput } from './cardDiff';
import { isWithin, relativePathReason } from '../../fs/containment';
import { checkOpenable } from '../../fs/fileIdentity';
import { earlierPage, elideShownTexts, PatchBatch, SNAPSHOT_ENTRIES, windowState } from '../../acp/session/window';
import type { SessionChange, SessionController } from '../../acp/sessionController';
import { parseWebviewMessage } from './messages';
import type { AgentChoice, HostMessage, KeyCommand, MentionItem, SessionSummary, WebviewMessage } from './protocol';
import type { ContextItem } from '../../acp/promptContext';
import { errorText, text } from '../../common/untrustedText';
import { approvalText } from '../../common/approvalText';
import { openElicitationUrl } from './elicitationUrl';
import { secondYes } from '../hiddenValues';
import { sessionTitle } from '../../acp/session/promptSummary';
import { distinctTitles } from '../../acp/session/board';
import type { MessageActions } from './messageActions';
import { TurnChangesFeed, type TurnChangesSource } from './turnChanges';
import { sendFromPage } from './promptSend';

/** What a session surface needs from the app. */
export interface SessionViewHost {
  agents(): AgentChoice[];
  sessions(): SessionController[];
  session(key: string): SessionController | undefined;
  startSession(agentId: string): Promise<string>;
  /** Sends (or queues) a prompt with what the person attached to it. */
  prompt(key: string, text: string, context?: ContextItem[]): Promise<unknown>;
  /** Files and symbols of the workspace matching an @-mention. */
  searchMentions(query: string): Promise<MentionItem[]>;
  /** The active editor's file, selection or problems as an attachment (undefined: nothing to attach; the person is told). */
  contextFromEditor(what: 'file' | 'selection' | 'diagnostics'): Promise<{ item: ContextItem; label: string } | undefined>;
  cancel(key: string): Promise<void>;
  /** `acceptHidden`: the person's second yes to values the card does not show (see `SessionController.answerPermission`). */
  answerPermission(key: string, permissionId: string, optionId: string, by: 'person' | 'api', grant?: 'session' | 'workspace' | 'always', acceptHidden?: boolean): boolean;
  /** Rejects every waiting request of the session, as the person (see `SessionController.rejectAllWaiting`). */
  rejectAllWaiting(key: string): void;
  /** The page of session `key` reports the waiting card that holds the focus (`null`: none); see `permissionTarget.ts`. */
  cardFocused?(key: string, permissionId: string | null): void;
  closeSession(key: string): Promise<void>;
  /** Takes a closed or restored session up again in a new agent process. */
  resumeSession(key: string): Promise<void>;
  /** Restart Agent: a new agent process for a live session (resume, load or a new session). */
  restartAgent(key: string): Promise<void>;
  /** The host's clock (ms since the epoch) the page's "silent for N min" labels follow; Date.now when absent. */
  now?(): number;
  /** A surface shows another session, or was shown or hidden (what waits off screen may have changed). */
  onShownChange?(): void;
  /** Opens the session in an editor tab of its own. */
  openInTab(key: string): void;
  showTerminal(key: string, terminalId: string): void;
  /** "Allow host and re-run" (issue 21): see `SessionController.allowHostAndRerun`. */
  allowSandboxHost(key: string, terminalId: string, host: string): Promise<void>;
  /** Shows the changes a tool call made in the Changes view and the diff editor. */
  reviewToolCall(key: string, toolCallId: string): Promise<void>;
  /** The end-of-turn rows of the thread and their buttons (absent: no rows). */
  turnChanges?: TurnChangesSource;
  log(message: string): void;
  /** Opens what fixes an unavailable agent (its settings entry, or the log with the PATHs searched), or lists them. */
  showUnavailableAgents(agentId?: string): Promise<void>;
  /** Restore checkpoint and Edit and resend on the person's messages. */
  messages?: Pick<MessageActions, 'preview' | 'restore' | 'forEdit'>;
}

/** How often the page hears the host's clock while a call runs (its silence label counts minutes). */
const CLOCK_MS = 30_000;

/** Summary line of a session for the picker. */
export function summarize(c: SessionController, titles?: ReadonlyMap<string, string>): SessionSummary {
  const s = c.state;
  // The agent's title, else the first prompt in words (a JSON script too): as the Changes view names
  // it; told apart from its siblings' (parallel runs of one prompt) when `titles` says how.
  const title = titles?.get(s.key) ?? sessionTitle(s);
  // Questions of the agent (elicitation) wait for the person as permissions do.
  const waiting = Object.values(s.permissions).filter((p) => p.state === 'waiting').length + s.entries.filter((e) => e.kind === 'elicitation' && e.elicitation.state === 'waiting').length;
  return { key: s.key, agentName: s.agentName, title, status: s.status, waiting };
}

/** {@link summarize} of each of `all`, the titles of one agent's sessions told apart. */
export function summarizeAll(all: readonly SessionController[]): SessionSummary[] {
  const titles = new Map<string, string>();
  for (const agentId of new Set(all.map((c) => c.state.agentId))) {
    for (const [k, t] of distinctTitles(all.filter((c) => c.state.agentId === agentId).map((c) => c.state))) titles.set(k, t);
  }
  return all.map((c) => summarize(c, titles));
}

/**
 * Most often a page is sent a fresh window of a session the agent is replaying (ms). Each window
 * costs the page a rebuild that competes with the replay for the machine: once a second shows
 * progress, and PF9's replay reached the screen 20–30% sooner than at twice a second.
 */
export const REPLAY_SNAPSHOT_MS = 1000;

/** Feeds one session webview (view or panel). */
export class SessionSurface {
  private ready = false;
  /** Attachments that arrived before the page was ready. */
  private readonly pendingContext: { item: ContextItem; label: string }[] = [];
  private readonly batch = new PatchBatch();
  /** The tool texts the page was sent since its last snapshot (see `elideShownTexts`). */
  private shownTexts = new Map<string, (string | undefined)[]>();
  private flushTimer: NodeJS.Timeout | undefined;
  /**
   * The session whose window the page has, with every change since (undefined when it may have
   * missed one, or was sent earlier pages), and how many entries came before that window: `show`
   * of it again sends nothing new while the page holds no more than a window.
   */
  private windowOf: string | undefined;
  private windowStart = 0;
  /** Set while a replay's window waits to be posted (see `onSessionChange`). */
  private replayTimer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[];
  /** The shown session's end-of-turn rows. */
  private readonly turnFeed: TurnChangesFeed;

  /**
   * @param currentKey the session shown at first (undefined: the newest)
   * @param isVisible whether the page can be seen now (nothing is posted while it cannot)
   */
  constructor(
    private readonly webview: vscode.Webview,
    private readonly host: SessionViewHost,
    private currentKey: string | undefined,
    private readonly isVisible: () => boolean,
  ) {
    this.subs = [webview.onDidReceiveMessage((raw) => void this.onMessage(raw))];
    this.turnFeed = new TurnChangesFeed(host.turnChanges, () => (this.currentKey ? this.host.session(this.currentKey)?.state : undefined), (m) => this.post(m), () => this.canPost());
    this.clockTimer = setInterval(() => this.tick(), CLOCK_MS);
    queueMicrotask(() => this.host.onShownChange?.());
  }

  private readonly clockTimer: NodeJS.Timeout;

  /**
   * Posts the host's clock while the shown session has a call the agent reports as pending or
   * running (whose "silent for N min" label may change); nothing otherwise.
   */
  private tick(): void {
    if (!this.canPost() || !this.currentKey) return;
    const s = this.host.session(this.currentKey)?.state;
    if (!s) return;
    for (const id in s.toolCalls) {
      const tc = s.toolCalls[id];
      if ((tc.status === 'pending' || tc.status === 'in_progress') && tc.updatedAt !== undefined) {
        this.post({ type: 'clock', now: this.host.now?.() ?? Date.now() });
        return;
      }
    }
  }

  /** The session shown. */
  get current(): string | undefined {
    return this.currentKey;
  }

  /**
   * Shows `key`: a fresh window of it. A page that already has every change of it since its last
   * window, and no more than a window's entries, only gets what waits in the batch: a second window
   * would rebuild each of its entries for nothing (taking a session up shows it at once, then again
   * once the agent has answered). A page that grew past a window (entries streamed in, or earlier
   * pages fetched) is trimmed back to the newest entries.
   */
  show(key: string | undefined): void {
    const entries = key !== undefined && key === this.windowOf ? this.host.session(key)?.state.entries.length : undefined;
    if (entries !== undefined && entries - this.windowStart <= SNAPSHOT_ENTRIES && key === this.currentKey && !this.replayTimer && this.canPost()) {
      clearTimeout(this.flushTimer);
      this.flush();
      return;
    }
    this.currentKey = key;
    this.postSnapshot();
    this.host.onShownChange?.();
  }

  /** The page became visible again: it gets what it missed. */
  visibilityChanged(): void {
    this.host.onShownChange?.();
    if (this.isVisible() && this.ready) {
      this.postSnapshot();
      this.flushPendingContext();
    }
  }

  /** Feeds a session change; patches of the shown session are batched to the webview. */
  onSessionChange(change: SessionChange): void {
    if (change.patches.some((p) => p.op === 'permission' || p.op === 'meta' || (p.op === 'entry' && p.entry.kind === 'elicitation'))) this.post({ type: 'sessions', sessions: this.summaries() });
    if (change.key !== this.currentKey) return;
    this.turnFeed.sessionChanged(change.patches);
    if (!this.canPost()) {
      this.windowOf = undefined;
      return;
    }
    if (change.replay) {
      // A `session/load` replay arrives as fast as the agent can send it (20,000 updates in about a
      // second, PF9): the page gets a fresh window of it at most every REPLAY_SNAPSHOT_MS rather than
      // every patch, which it would still be working through when the replay is over.
      this.replayTimer ??= setTimeout(() => {
        this.replayTimer = undefined;
        this.postSnapshot();
      }, REPLAY_SNAPSHOT_MS);
      return;
    }
    if (this.replayTimer) {
      // The replay is over: one window of all of it (this change included), then patches again.
      this.postSnapshot();
      return;
    }
    this.batch.push(change.patches, change.rev);
    this.flushTimer ??= setTimeout(() => this.flush(), 16);
  }

  /** The session list changed (started or closed): a shown session that is gone gives way to the newest. */
  onSessionsChange(): void {
    if (this.currentKey && !this.host.session(this.currentKey)) this.currentKey = this.host.sessions().at(-1)?.state.key;
    this.postSnapshot();
  }

  /** Posts the attachments that waited for a visible, ready page. */
  private flushPendingContext(): void {
    if (!this.canPost()) return;
    for (const c of this.pendingContext.splice(0)) this.post({ type: 'contextItem', ...c });
  }

  /** Hands the page something to attach to its next prompt (kept until the page is ready for it). */
  addContext(item: ContextItem, label: string): void {
    // A hidden page may be gone (it is rebuilt when shown): it gets the item once it can see it.
    if (this.canPost()) this.post({ type: 'contextItem', item, label });
    else this.pendingContext.push({ item, label });
  }

  /** Hands the page a keyboard command (a hidden page has no box or cards to act on: dropped). */
  keyCommand(command: KeyCommand): void {
    if (this.canPost()) this.post({ type: 'keyCommand', command });
  }

  /** Agents changed (settings). */
  onAgentsChange(): void {
    this.post({ type: 'agents', agents: this.host.agents() });
  }

  private canPost(): boolean {
    return this.ready && this.isVisible();
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.batch.empty || !this.currentKey) return;
    // A page that is not ready gets a snapshot when it is: the batch is not built for nothing.
    if (!this.ready) {
      this.batch.clear();
      return;
    }
    const { fromRev, rev } = this.batch;
    const patches = elideShownTexts(this.batch.take(), this.shownTexts);
    this.post({ type: 'patches', key: this.currentKey, fromRev, rev, patches });
  }

  postSnapshot(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    clearTimeout(this.replayTimer);
    this.replayTimer = undefined;
    this.batch.clear();
    this.shownTexts = new Map();
    this.windowOf = undefined;
    if (!this.ready) return;
    const state = this.currentKey ? this.host.session(this.currentKey)?.state : undefined;
    const { state: current, omitted } = state ? windowState(state) : { state: null, omitted: 0 };
    if (state && this.isVisible()) {
      this.windowOf = this.currentKey;
      this.windowStart = omitted;
    }
    this.post({
      type: 'snapshot',
      agents: this.host.agents(),
      sessions: this.summaries(),
      current,
      omittedEntries: omitted,
      workspaceTrusted: vscode.workspace.isTrusted,
      hasWorkspace: !!vscode.workspace.workspaceFolders?.length,
    });
    this.post({ type: 'clock', now: this.host.now?.() ?? Date.now() });
    this.turnFeed.resend();
  }

  private summaries(): SessionSummary[] {
    return summarizeAll(this.host.sessions());
  }

  private post(message: HostMessage): void {
    if (!this.ready) return;
    void this.webview.postMessage(message);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.host.log(`Ignored a malformed message from the session view: ${parsed.error}`);
      // A prompt that does not pass (too long, too many attachments) goes back to its box.
      const r = raw as { type?: unknown; text?: unknown };
      if (r && r.type === 'prompt' && typeof r.text === 'string') {
        this.post({ type: 'promptRefused', text: r.text.slice(0, 1_000_000), reason: `it was not accepted (${parsed.error.slice(0, 300)})` });
      }
      return;
    }
    try {
      await this.handle(parsed.message);
    } catch (err) {
      void vscode.window.showErrorMessage(text`${errorText(err)}`);
    }
  }

  private async handle(m: WebviewMessage): Promise<void> {
    if (await this.turnFeed.handle(m)) return;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (!this.currentKey) this.currentKey = this.host.sessions().at(-1)?.state.key;
        this.postSnapshot();
        this.flushPendingContext();
        return;
      case 'requestSnapshot':
        this.postSnapshot();
        return;
      case 'requestEarlier': {
        // Another session or a stale entry: no page, and the page asks for a snapshot.
        const state = m.key === this.currentKey ? this.host.session(m.key)?.state : undefined;
        const page = state && earlierPage(state, m.beforeEntryId);
        // The page takes these calls as the page carries them: what it was sent of them before no longer counts.
        for (const id in page?.toolCalls ?? {}) this.shownTexts.delete(id);
        if (page) this.windowOf = undefined;
        this.post({ type: 'earlierEntries', key: m.key, beforeEntryId: m.beforeEntryId, page });
        return;
      }
      case 'startSession':
      case 'resendMessage':
      case 'prompt':
        await sendFromPage(this.host, m, (msg) => this.post(msg));
        return;
      case 'selectSession':
        if (this.host.session(m.key)) this.show(m.key);
        return;
      case 'resumeSession':
        await this.host.resumeSession(m.key);
        return;
      case 'restartAgent':
        try {
          await this.host.restartAgent(m.key);
        } catch (err) {
          // The session's thread shows a launch failure itself; this says the restart did not happen.
          void vscode.window.showWarningMessage(text`The agent could not be restarted: ${err instanceof Error ? err.message : String(err)}`);
        }
        return;
      case 'openInTab':
        if (this.host.session(m.key)) this.host.openInTab(m.key);
        return;
      case 'previewCheckpoint':
        if (this.host.messages) this.post(this.host.messages.preview(m.key, m.entryId));
        return;
      case 'restoreCheckpoint':
        if (this.host.messages) this.post(await this.host.messages.restore(m.key, m.entryId));
        return;
      case 'editMessage': {
        const edit = this.host.messages?.forEdit(m.key, m.entryId);
        if (edit) this.post(edit);
        return;
      }
      case 'searchMentions':
        this.post({ type: 'mentionResults', requestId: m.requestId, items: await this.host.searchMentions(m.query) });
        return;
      case 'addContext': {
        const added = await this.host.contextFromEditor(m.what);
        if (added) this.addContext(added.item, added.label);
        return;
      }
      case 'setConfigOption':
        try {
          await this.host.session(m.key)?.setConfigOption(m.configId, m.value);
        } catch (err) {
          // The picker shows what the person chose; a snapshot puts back what the agent has.
          this.postSnapshot();
          void vscode.window.showWarningMessage(text`The option could not be changed: ${err instanceof Error ? err.message : String(err)}`);
        }
        return;
      case 'cancel':
        await this.host.cancel(m.key);
        return;
      case 'rejectAllWaiting':
        this.host.rejectAllWaiting(m.key);
        return;
      case 'cardFocus':
        // Only a card of the session this page shows: a page cannot point the key at another
        // session's card (it may say that a card it reported before no longer has the focus).
        if (m.key === this.current || m.permissionId === null) this.host.cardFocused?.(m.key, m.permissionId);
        return;
      case 'setMode':
        try {
          await this.host.session(m.key)?.setMode(m.modeId);
        } catch (err) {
          void vscode.window.showWarningMessage(text`The mode could not be changed: ${err instanceof Error ? err.message : String(err)}`);
        }
        return;
      case 'answerPermission': {
        // A card that does not show some values is allowed only after the person's second yes.
        const second = await secondYes(this.host.session(m.key), m.permissionId, m.optionId);
        if (second === 'declined') return;
        if (!this.host.answerPermission(m.key, m.permissionId, m.optionId, 'person', m.grant, second === 'accepted')) {
          this.host.log(`Permission answer ignored: ${m.permissionId} is no longer waiting or ${m.optionId} is not one of its options.`);
        }
        return;
      }
      case 'answerElicitation': {
        const r = this.host.session(m.key)?.answerElicitation(m.elicitationKey, m.action, m.content);
        if (r && !r.ok && 'problems' in r) this.post({ type: 'elicitationProblems', key: m.key, elicitationKey: m.elicitationKey, problems: r.problems });
        else if (!r?.ok) this.host.log(`Answer to a question ignored: ${m.elicitationKey} is no longer waiting.`);
        return;
      }
      case 'openElicitationUrl':
        await openElicitationUrl(this.host.session(m.key), m.elicitationKey, (problems) => this.post({ type: 'elicitationProblems', key: m.key, elicitationKey: m.elicitationKey, problems }));
        return;
      case 'openLocation': {
        // Locations come from the agent, and ACP makes them absolute: a relative one is not guessed
        // at (resolving it would use the extension host's own working folder).
        if (!path.isAbsolute(m.path)) {
          void vscode.window.showWarningMessage(text`The location the agent points at was not opened: ${relativePathReason(m.path)}`);
          return;
        }
        // A file outside the workspace opens only after the person confirms.
        const inside = (vscode.workspace.workspaceFolders ?? []).some((f) => isWithin(f.uri.fsPath, path.normalize(m.path)));
        if (!inside) {
          // The whole path, as it is, or no offer to open it (see approvalText).
          const where = approvalText([m.path], { what: 'The path' });
          if (!where.ok) return void vscode.window.showWarningMessage(text`The location the agent points at is outside the workspace and was not opened: ${where.reason}`);
          const choice = await vscode.window.showWarningMessage(text`The agent points at a file outside the workspace. Open it anyway?`, { modal: true, detail: where.text }, 'Open');
          if (choice !== 'Open') return;
        }
        const uri = vscode.Uri.file(path.normalize(m.path));
        // The editor would wait on a FIFO or read /dev/zero without end: only regular files open.
        try {
          await checkOpenable(uri.fsPath);
        } catch {
          void vscode.window.showWarningMessage(text`The location the agent points at is not a regular file of a size the editor opens (a FIFO, device, directory or a huge file), so it was not opened.`);
          return;
        }
        const line = Math.max(0, (m.line ?? 1) - 1);
        await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, 0, line, 0), preview: true });
        return;
      }
      case 'showTerminal':
        this.host.showTerminal(m.key, m.terminalId);
        return;
      case 'allowSandboxHost':
        await this.host.allowSandboxHost(m.key, m.terminalId, m.host);
        return;
      case 'openToolDiff':
        await openCardDiff(this.host.session(m.key)?.state, m.key, m.toolCallId, m.index);
        return;
      case 'openToolInput':
        await openCardInput(this.host.session(m.key)?.state, m.key, m.toolCallId);
        return;
      case 'reviewToolCall':
        await this.host.reviewToolCall(m.key, m.toolCallId);
        return;
      case 'closeSession':
        await this.host.closeSession(m.key);
        return;
      case 'configureAgents':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'agentSwitchboard.agents');
        return;
      case 'showUnavailableAgents':
        await this.host.showUnavailableAgents(m.agentId);
        return;
    }
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    clearTimeout(this.replayTimer);
    clearInterval(this.clockTimer);
    this.turnFeed.dispose();
    this.subs.forEach((d) => d.dispose());
    queueMicrotask(() => this.host.onShownChange?.());
  }
}
