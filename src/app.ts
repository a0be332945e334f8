/**
 * Composition root: builds the features in order and owns the root disposables. The ACP core,
 * session model, terminals and file checks are vscode-free; this file wires them to the editor
 * (settings, workspace folders, trust, the sidebar, commands) and implements the public API.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkContained, isWithin } from './fs/containment';
import { SessionManager } from './acp/sessionManager';
import { SessionTerminals } from './acp/sessionTerminals';
import { Sandboxes } from './sandbox/sandboxes';
import type { SessionController } from './acp/sessionController';
import type { SwitchboardApi } from './api';
import { resolveAgents, type ResolvedAgent } from './config/agents';
import { mergePaths, readLoginShellPath } from './config/loginPath';
import { onDidChangeSettings, readSettings, type Settings } from './config/vscodeSettings';
import { EditorFiles, readCurrentText } from './fs/vscodeFiles';
import { AuditLog, type AuditEntry } from './policy/audit';
import { auditStores } from './views/auditStores';
import { AuditRecordDocuments } from './views/auditRecord';
import { WalkthroughProgress } from './views/walkthrough';
import { parseMcpNode } from './views/mcpTree';
import { TracingCenter } from './views/tracingCenter';
import { RemoteAgentsCenter } from './views/remoteAgents';
import { InspectorPanels } from './views/inspector/panel';
import { sessionToJson, sessionToMarkdown } from './acp/session/export';
import { EffectPolicy } from './policy/effectPolicy';
import { registerCommands } from './views/commands';
import { registerPermissionKeys, updateContextKeys } from './views/permissionKeys';
import { FocusedCards } from './views/permissionTarget';
import { runVouched } from './views/guardedCommands';
import type { AgentChoice } from './views/session/protocol';
import { SESSION_VIEW_ID, SessionViewProvider, summarizeAll } from './views/session/provider';
import { SessionPanels } from './views/session/panels';
import { SessionsCenter } from './views/sessions';
import { SessionJournal } from './acp/session/journal';
import { AgentRegistryCenter } from './views/agentRegistry';
import { AgentLogin } from './views/agentLogin';
import { PromptContextCenter } from './views/promptContext';
import { SessionAttention } from './views/attention';
import { WaitingIndicator } from './views/waitingIndicator';
import { CapabilityBook, capabilitiesMarkdown } from './acp/capabilityBook';
import { buildPromptContext, ContextItemSchema, type ContextItem, type ContextPort } from './acp/promptContext';
import { showTerminal } from './views/terminalView';
import { showUnavailableAgents } from './views/unavailableAgents';
import { ApprovalsTree, GrantsTree } from './views/policyViews';
import { registerCardDiffs } from './views/session/cardDiff';
import { WorktreeCenter } from './views/worktrees';
import { registerWorktreeCommands } from './views/worktreeCommands';
import { DiffFeedback } from './views/feedback';
import { CompareCenter } from './views/compare/panel';
import { registerCompareCommands } from './views/compare/commands';
import type { WorktreeFrom } from './worktrees/worktrees';
import { WorkspaceSettingsNotes } from './views/workspaceSettings';
import { ConflictCenter } from './views/conflicts';
import { ReviewCenter } from './views/review';
import { followWorktrees, reviewSessionClosed } from './views/reviewWorktrees';
import { pendingCounts } from './edits/reviewSessions';
import { reviewTurnChanges } from './views/session/turnChanges';
import { InlineReview } from './views/inlineReview';
import { FollowEdits } from './views/followEdits';
import { McpCenter } from './views/mcp';
import { forwardServers, type ForwardResult } from './mcp/forward';
import { describeProblem } from './mcp/catalog';
import { RUN_AS_NODE } from './mcp/launchSpec';
import { EditorMcpServer } from './mcp/editorServer';
import { VscodeLanguagePort } from './views/editorLanguage';
import type { McpCapabilities } from '@agentclientprotocol/sdk';
import { inert, setMessageTranslator, text } from './common/untrustedText';
import { prepareAgentStart } from './agentConfig/gate';
import { vscodeConsentPort } from './agentConfig/vscodeConsent';
import type { LoadedApp } from './activation/vscodeDeferredStart';
import { MessageActions } from './views/session/messageActions';
import { SentContext } from './views/session/sentContext';
import { registerCommand, registerTreeDataProvider, registerWebviewViewProvider, useRegistrar, type Registrar } from './activation/vscodeRegistry';

/** The running extension. */
export class App implements vscode.Disposable, LoadedApp {
  readonly log: vscode.LogOutputChannel;
  readonly manager: SessionManager;
  readonly view: SessionViewProvider;
  /** Every session's transcript, kept across window reloads. */
  readonly journal: SessionJournal;
  readonly sessionPanels: SessionPanels;
  /** The permission card the session pages last reported as holding the focus (the keyboard's approve answers it). */
  private readonly focusedCards = new FocusedCards();
  /** What went with each prompt sent, for Edit and resend. */
  private readonly sentContext = new SentContext();
  readonly sessionsCenter: SessionsCenter;
  private readonly promptContext: PromptContextCenter;
  private readonly attention: SessionAttention;
  private readonly waiting: WaitingIndicator;
  /** Every agent version's capability matrix, across sessions and windows. */
  readonly capabilityBook: CapabilityBook;
  readonly policy: EffectPolicy;
  readonly conflicts: ConflictCenter;
  readonly worktrees: WorktreeCenter;
  readonly compare: CompareCenter;
  readonly review: ReviewCenter;
  readonly mcp: McpCenter;
  readonly editorMcp: EditorMcpServer;
  readonly audit: AuditLog;
  private readonly terminals = new Map<string, SessionTerminals>();
  /** The sandbox of agents' commands and stdio MCP servers (issue 21). */
  readonly sandboxes: Sandboxes;
  /** MCP server ids each session's agent received in `session/new`. */
  private readonly mcpGiven = new Map<string, Set<string>>();
  private readonly disposables: vscode.Disposable[] = [];
  private settingsCache: Settings | undefined;
  private login: AgentLogin | undefined;
  private agentCache: ResolvedAgent[] | undefined;
  /** Agent problems already logged or shown: each resolution (every settings change) says only what is new. */
  private readonly agentProblemsSaid = new Set<string>();
  /** The login shell's PATH once read (null: it could not be), for agents a desktop-launched editor would not find. */
  private loginPath: string | null | undefined;
  /** Spans, the OTLP receiver, trace panels, export and saved traces. */
  readonly tracing: TracingCenter;
  private readonly auditRecords: AuditRecordDocuments;
  private readonly walkthrough: WalkthroughProgress;
  readonly remoteAgents: RemoteAgentsCenter;
  private readonly inspectors: InspectorPanels;
  /** What the workspace's settings tightened, or tried to loosen and was ignored. */
  readonly workspaceSettings: WorkspaceSettingsNotes;

  /**
   * Builds the extension behind the stand-ins of the deferred start (src/activation/vscodeDeferredStart.ts):
   * `registrar` takes every command and view it registers.
   */
  constructor(private readonly context: vscode.ExtensionContext, registrar?: Registrar) {
    useRegistrar(registrar);
    // Every text`…` / markdown`…` message goes through the editor's localization (package.nls.json
    // conventions: `{0}` placeholders); the interpolated values are already inert text.
    this.disposables.push({ dispose: setMessageTranslator((message, args) => vscode.l10n.t(message, ...args)) });
    this.log = vscode.window.createOutputChannel('Agent Switchboard', { log: true });
    const dropSettings = () => void (this.settingsCache = undefined);
    this.disposables.push(vscode.workspace.onDidChangeConfiguration(dropSettings), vscode.workspace.onDidGrantWorkspaceTrust(dropSettings), vscode.workspace.onDidChangeWorkspaceFolders(dropSettings));
    this.workspaceSettings = new WorkspaceSettingsNotes((m) => this.log.warn(m));
    const version = String(context.extension.packageJSON.version ?? '0.0.0');
    // One audit log per workspace, in the extension's storage (global storage without a workspace).
    // Its head and signing key live outside the file (workspace state, SecretStorage).
    const auditKept = auditStores(context);
    this.audit = new AuditLog(vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'audit.jsonl').fsPath, undefined, auditKept.head, auditKept.keys);
    this.auditRecords = new AuditRecordDocuments(this.audit);
    this.disposables.push(this.auditRecords);
    // The sandbox of agents' commands (issue 21): what they may touch is part of what is approved.
    const userDir = path.dirname(path.dirname(context.globalStorageUri.fsPath));
    this.sandboxes = new Sandboxes({
      settings: () => this.settings().sandbox,
      workspaceRoots: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      // The editor's own state: settings (which may hold keys), other workspaces' storage (audit logs,
      // journals), the state database behind SecretStorage.
      editorStorage: () => [
        path.join(userDir, 'settings.json'),
        path.join(userDir, 'workspaceStorage'),
        path.join(userDir, 'globalStorage', 'state.vscdb'),
        path.join(userDir, 'globalStorage', 'state.vscdb.backup'),
        ...(context.storageUri ? [context.storageUri.fsPath] : []),
      ],
      log: (m) => this.log.info(m),
    });
    this.policy = new EffectPolicy({
      sandbox: (who) => this.sandboxes.plan(who.roots, who.sandboxHosts),
      defaults: () => this.settings().policy,
      roots: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      readCurrent: readCurrentText,
      audit: this.audit,
      // Workspace grants live with the workspace, "always" grants with the person's profile.
      grantStorage: {
        load: (scope) => (scope === 'workspace' ? context.workspaceState : context.globalState).get(`agentSwitchboard.grants.${scope}`),
        save: (scope, grants) => void (scope === 'workspace' ? context.workspaceState : context.globalState).update(`agentSwitchboard.grants.${scope}`, grants),
      },
      log: (m) => this.log.info(m),
    });
    const roots = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    this.conflicts = new ConflictCenter(vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'merges'));
    // Worktrees live in the person's profile storage, outside every workspace folder (issue 20).
    this.worktrees = new WorktreeCenter({ storage: context.globalStorageUri.fsPath, conflicts: this.conflicts, log: (m) => this.log.warn(m), busy: (key) => ['prompting', 'cancelling'].includes(this.manager?.get(key)?.state.status ?? '') });
    // What a person reviews, undoes and restores: the workspace folders and the worktrees sessions work in.
    const reviewRoots = () => [...roots(), ...this.manager.list().flatMap((c) => (c.state.worktree ? [c.state.worktree.dir] : []))];
    this.tracing = new TracingCenter(context.extensionUri, {
      archiveDir: vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'traces').fsPath,
      version,
      mcpServerName: (serverId) => this.mcp.host.list().find((x) => x.definition.id === serverId)?.definition.name ?? serverId,
      sessionInView: () => this.sessionInView()?.state.key,
      showSession: (key) => this.view.show(key),
      revealToolCall: (key, toolCallId) => this.review.revealToolCall(key, toolCallId),
      openAuditRecord: (hash) => this.openAuditRecord(hash),
      log: (m) => this.log.warn(m),
    });
    this.mcp = new McpCenter(context, (m) => this.log.warn(m), (e) => this.auditLater(e), {
      tracer: this.tracing.mcpSpans,
      // A fresh token for each start: a stopped server's token stops working.
      otelEnv: (serverId) => this.tracing.mcpServerEnv(serverId),
    }, {
      // A stdio server whose definition asks for it, or every one when the setting says so (issue 21).
      wanted: (t) => t.type === 'stdio' && (t.sandbox === true || this.settings().sandboxMcpServers),
      // Only in a profile that reaches what its approval was given for, when the plan named that.
      launch: (l, requested, reach) => (reach !== undefined || requested || this.settings().sandboxMcpServers ? this.sandboxes.launch(l, reach) : Promise.resolve(l)),
      profile: (cwd) => this.sandboxes.mcpProfile(cwd),
    });
    this.editorMcp = new EditorMcpServer(
      new VscodeLanguagePort(roots),
      (sessionKey, tool, args, outcome, call) => {
        // A delegation is audited as the person's decision and its effect; the read-only tools here.
        if (tool !== 'delegate_to_remote_agent') this.policy.recordEditorToolCall(sessionKey, tool, typeof args.path === 'string' ? args.path : undefined, outcome);
        if (call) this.manager.get(sessionKey)?.traceEditorToolCall(tool, call, outcome);
      },
      version,
      {
        list: () => this.remoteAgents.summaries(),
        delegate: (sessionKey, args, signal) => {
          const c = this.manager.get(sessionKey);
          if (!c) throw new Error('That session has ended.');
          return this.remoteAgents.delegateForSession({ key: sessionKey, agentName: c.state.agentName, host: (call, run) => c.hostToolCall(call, run, signal) }, args);
        },
      },
    );
    this.inspectors = new InspectorPanels(context.extensionUri, (m) => this.log.warn(m));
    this.remoteAgents = new RemoteAgentsCenter(context, {
      tracing: this.tracing.tracing,
      audit: (e) => this.auditLater(e),
      showTrace: (key, title) => this.tracing.panels.show(key, title),
      log: (m) => this.log.warn(m),
    });
    this.review = new ReviewCenter({
      agentName: (key) => this.manager.get(key)?.state.agentName ?? 'closed session',
      agentId: (key) => this.manager.get(key)?.state.agentId ?? 'closed session',
      roots: reviewRoots,
      protectedTargets: () => this.settings().policy.protectedTargets,
      // Undo and Restore writes are effects the person decided: in the same audit log as the gate's.
      audit: (e) => void this.audit.append(e),
      log: (m) => this.log.warn(m),
    });
    this.journal = new SessionJournal(vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'sessions').fsPath, (m) => this.log.warn(m));
    this.capabilityBook = new CapabilityBook(vscode.Uri.joinPath(context.globalStorageUri, 'capabilities.json').fsPath, (m) => this.log.warn(m));
    const agentConfigConsent = vscodeConsentPort(context.workspaceState);
    this.manager = new SessionManager({
      journal: this.journal,
      capabilities: this.capabilityBook,
      agents: () => this.resolvedAgents(),
      // Agents see the login shell's PATH too: what found them must also be there for what they start.
      baseEnv: () => this.agentBaseEnv(),
      initializeTimeoutMs: () => this.settings().initializeTimeoutMs,
      cancelGraceMs: () => this.settings().cancelGraceMs,
      clientInfo: { name: 'agent-switchboard', title: 'Agent Switchboard', version },
      filesFor: (key) =>
        new EditorFiles(
          // A session in a worktree of its own writes there and nowhere else.
          // Its folder in the worktree: the part of the repository the person opened, not the whole checkout.
          () => {
            const state = this.manager.get(key)?.state;
            return state?.worktree ? [state.cwd] : roots();
          },
          (change, current) => this.conflicts.report(change, current),
          (file, base, after) => {
            const state = this.manager.get(key)?.state;
            if (state) this.review.clientWrote(state, file, base, after);
          },
        ),
      // Every session (new, resumed, loaded) is attached only after this: its agent's first effect
      // finds the audit log open and signing, so its records are on disk before the effect goes ahead.
      mcpServers: async (caps, key) => {
        await this.audit.open();
        return this.forwardMcp(caps, key);
      },
      terminalsFor: (key, cwd) => {
        // Terminals see the same PATH as the agents that ask for them (the login shell's included).
        const t = new SessionTerminals(cwd, () => this.agentBaseEnv(), undefined, (profile) => this.sandboxes.wrapper(profile));
        this.terminals.set(key, t);
        return t;
      },
      onStderr: (agentId, text) => this.log.info(`[${agentId} stderr] ${text.trimEnd()}`),
      policy: this.policy,
      tracing: this.tracing.tracing,
      // Agents that export OpenTelemetry send their spans to our receiver, under the session's trace.
      otelEnv: (key) => this.tracing.receiverEnv(`session:${key}`),
      // What the repository configures for the agent is shown and asked about before it starts.
      agentConfig: (agent, cwd, ask) => prepareAgentStart(agent, cwd, agentConfigConsent, { ask }),
    });
    // The walkthrough's steps check off when the person did each thing (see views/walkthroughSteps.ts).
    this.walkthrough = new WalkthroughProgress({
      onDidChangeSession: (l) => this.manager.onDidChangeSession(l),
      changes: { view: this.review.view, any: () => this.review.model.turns().some((t) => t.files.length > 0), onDidChange: (l) => this.review.model.onDidChange(l) },
      agents: () => this.resolvedAgents(),
      walkthroughId: `${context.extension.id}#firstRun`,
    });
    this.disposables.push(this.walkthrough);
    const sessionHost = {
      agents: () => this.agents(),
      sessions: () => this.manager.list(),
      session: (key: string) => this.manager.get(key),
      // A start from the sidebar is the person's: an agent that needs a login offers its methods.
      startSession: (agentId: string) => this.startSession(agentId, undefined, true),
      // The sidebar sends, or queues while a turn runs (the API's prompt() still waits for its turn).
      prompt: (key: string, text: string, context?: ContextItem[]) => this.sendWithContext(key, text, context),
      searchMentions: (query: string) => this.promptContext.searchMentions(query),
      contextFromEditor: (what: 'file' | 'selection' | 'diagnostics') => this.promptContext.fromEditor(what),
      cancel: (key: string) => this.cancel(key),
      answerPermission: (key: string, pid: string, oid: string, by: 'person' | 'api', grant?: 'session' | 'workspace' | 'always', acceptHidden?: boolean) => this.manager.get(key)?.answerPermission(pid, oid, by, grant, { acceptHidden }) ?? false,
      rejectAllWaiting: (key: string) => void this.manager.get(key)?.rejectAllWaiting('person'),
      closeSession: (key: string) => this.closeSession(key),
      resumeSession: async (key: string) => void (await this.sessionsCenter.resume({ kind: 'live', key })),
      restartAgent: async (key: string) => void (await this.manager.restartAgent(key)),
      openInTab: (key: string) => void this.sessionPanels.show(key),
      showTerminal: (key: string, terminalId: string) => this.showTerminal(key, terminalId),
      allowSandboxHost: async (key: string, terminalId: string, host: string) => {
        try {
          await this.session(key).allowHostAndRerun(terminalId, host);
        } catch (err) {
          void vscode.window.showWarningMessage(text`${err instanceof Error ? err.message : String(err)}`);
        }
      },
      reviewToolCall: (key: string, toolCallId: string) => this.review.revealToolCall(key, toolCallId),
      turnChanges: reviewTurnChanges({ review: this.review, worktrees: this.worktrees, roots: reviewRoots }),
      log: (m: string) => this.log.warn(m),
      showUnavailableAgents: (agentId?: string) => showUnavailableAgents(this.resolvedAgents(), this.log, agentId),
      cardFocused: (key: string, permissionId: string | null) => this.focusedCards.report(key, permissionId),
      onShownChange: () => this.waiting?.update(),
      messages: new MessageActions({
        session: (key) => this.manager.get(key),
        model: this.review.model,
        // The person confirmed the count in the thread, which also says how it went.
        restore: (key, turn, reasons) => this.review.restoreCheckpoint({ type: 'turn', sessionKey: key, turn, confirmed: true }, { reasons, quiet: true }),
        sent: this.sentContext,
      }),
    };
    this.view = new SessionViewProvider(context.extensionUri, sessionHost);
    this.promptContext = new PromptContextCenter((item, label) => this.view.addContext(item, label));
    this.attention = new SessionAttention({
      manager: this.manager,
      inView: (key) => (this.view.visible && this.view.current === key) || this.sessionPanels.visible(key),
      enabled: () => this.settings().showNotifications,
      show: (key) => this.view.show(key),
    });
    this.sessionPanels = new SessionPanels(context.extensionUri, sessionHost);
    this.waiting = new WaitingIndicator({ sessions: () => this.manager.list(), onScreen: (key) => (this.view.visible && this.view.current === key) || this.sessionPanels.visible(key) });
    this.sessionsCenter = new SessionsCenter({
      manager: this.manager,
      journal: this.journal,
      view: this.view,
      panels: this.sessionPanels,
      agents: () => this.resolvedAgents(),
      closeSession: (key) => this.closeSession(key),
      cwd: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      within: (folder) => (vscode.workspace.workspaceFolders ?? []).some((f) => isWithin(f.uri.fsPath, path.normalize(folder))),
      log: (m) => this.log.warn(m),
      board: {
        // What still waits for the person: kept and undone changes are decided.
        changes: (key) => pendingCounts(this.review.model, key),
        worktrees: () => this.worktrees.listed(),
        onDidChange: (listener) => {
          const a = this.worktrees.onDidChange(listener);
          const b = this.review.model.onDidChange(listener);
          return { dispose: () => (a.dispose(), b.dispose()) };
        },
      },
    });
    this.worktrees.load();
    this.compare = new CompareCenter({
      extensionUri: context.extensionUri,
      worktrees: this.worktrees,
      startSession: (agentId, cwd, from) => this.startSession(agentId, cwd, false, from),
      prompt: (key, prompt) => this.prompt(key, prompt),
      session: (key) => this.manager.get(key),
      closeSession: (key) => this.closeSession(key),
      show: (key) => void this.view.show(key),
      env: () => this.agentBaseEnv(),
      // The test command runs the agent's code: in the sandbox of that session's commands.
      sandbox: (roots) => this.sandboxes.plan(roots),
      wrapper: (profile) => this.sandboxes.wrapper(profile),
      // The person named the test command: their approval, recorded as such.
      audit: (key, command, cwd, result, sandbox) => this.auditLater({ sessionId: key, agentId: this.manager.get(key)?.state.agentId ?? 'compare', event: 'effect', decision: result === 'ok' ? 'performed' : result === 'refused' ? 'refused' : 'failed', decidedBy: 'person:compare-test-command', detail: { command, cwd, result, sandbox } }),
      log: (m) => this.log.warn(m),
    });
    this.disposables.push(
      this.worktrees,
      this.compare,
      ...registerCompareCommands({
        compare: this.compare,
        agents: () => this.resolvedAgents(),
        cwd: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      }),
      // A comment on a line an agent changed goes back to that agent as its next prompt.
      new DiffFeedback({
        sessionFor: (file) => {
          const changes = this.review.model.turns().flatMap((t) => t.files).filter((f) => f.path === file);
          for (const f of changes.reverse()) {
            const c = this.manager.get(f.sessionKey);
            if (c?.connected && c.state.status !== 'closed') return c;
          }
          return undefined;
        },
        send: (key, prompt, context) => this.sendWithContext(key, prompt, context),
        // The answer is read where it comes: the side bar shows that session (the comment keeps the focus).
        show: (key) => this.view.show(key, true, true),
      }),
      ...registerWorktreeCommands({
        worktrees: this.worktrees,
        agents: () => this.resolvedAgents(),
        startSession: (agentId, cwd, interactive, from) => this.startSession(agentId, cwd, interactive, from),
        session: (key) => this.manager.get(key),
        closeSession: (key) => this.closeSession(key),
        current: () => this.view.current,
        cwd: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      }),
      this.tracing,
      registerCommand('agentSwitchboard.showTrace', (key?: unknown) => this.showTrace(typeof key === 'string' ? key : undefined)),
      registerCommand('agentSwitchboard.showInspector', (key?: unknown) => this.showInspector(typeof key === 'string' ? key : undefined)),
      registerCommand('agentSwitchboard.exportSession', (key?: unknown, format?: unknown, fileContents?: unknown) =>
        this.exportSession(typeof key === 'string' ? key : undefined, format === 'json' || format === 'markdown' ? format : undefined, fileContents === true),
      ),
      this.inspectors,
      // The trace of the requests the person (Run Tool) and MCP Apps sent to a server.
      registerCommand('agentSwitchboard.mcp.showTrace', (n: unknown) => this.tracing.showMcpTrace(parseMcpNode(n).serverId)),
      this.remoteAgents,
      this.conflicts,
      this.review,
      new InlineReview(this.review, () => this.settings().inlineReview),
      new FollowEdits(this.review.model, {
        shownSession: () => this.view.current,
        enabled: () => this.settings().inlineReview && this.settings().followEdits,
      }),
      this.mcp,
      { dispose: () => void this.editorMcp.dispose() },
      this.log,
      this.view,
      this.sessionPanels,
      this.waiting,
      this.sessionsCenter,
      this.promptContext,
      new AgentRegistryCenter({
        storageDir: context.globalStorageUri.fsPath,
        env: () => this.agentBaseEnv(),
        log: (m) => this.log.info(m),
      }),
      (this.login = new AgentLogin(this.manager, () => this.resolvedAgents(), (m) => this.log.info(m))),
      registerWebviewViewProvider(SESSION_VIEW_ID, this.view),
      this.manager.onDidChangeSession((c) => {
        const state = this.manager.get(c.key)?.state;
        // A replayed history (session/load) is not a change happening now: nothing to review.
        if (state && !c.replay) this.review.onSessionPatches(state, c.patches);
        this.view.onSessionChange(c);
        this.sessionPanels.onSessionChange(c);
        this.attention.onSessionChange(c);
        this.waiting.onSessionChange(c);
        updateContextKeys(this.manager.list());
      }),
      this.manager.onDidCloseSession(({ key, state }) => {
        this.sessionClosed(key, state.agentName);
        reviewSessionClosed(this.review.model, state);
      }),
      followWorktrees(this.review.model, this.worktrees.onDidEnd),
      this.manager.onDidChangeSessions(() => {
        this.view.onSessionsChange();
        this.sessionPanels.onSessionsChange();
        this.waiting.update();
        updateContextKeys(this.manager.list());
        this.capabilityBook.save();
      }),
      registerCommand('agentSwitchboard.showAgentCapabilities', (arg?: unknown) => this.showAgentCapabilities(arg)),
      this.mcp.onDidChangeCatalog(({ definition, description }) => {
        // ACP cannot take a server back from a running agent: the session is told instead.
        for (const [key, ids] of this.mcpGiven) {
          if (ids.has(definition.id)) this.manager.get(key)?.notice('warning', `The MCP server "${definition.name}" that this agent was given: ${description}. New sessions do not get it until you accept the change; this agent still has it.`);
        }
      }),
      this.workspaceSettings,
      onDidChangeSettings(() => {
        void this.workspaceSettings.refresh();
        this.agentCache = undefined;
        this.view.onAgentsChange();
        this.walkthrough.agentsChanged();
        this.sessionPanels.onAgentsChange();
        this.sessionsCenter.tree.refresh();
        // The header's note on modes that do not ask follows agentSwitchboard.policy.unrequestedEffects.
        for (const c of this.manager.list()) c.gateChanged();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.view.onSessionsChange()),
      // Another folder brings settings of its own (a multi-root workspace's folder settings).
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.workspaceSettings.refresh()),
      registerTreeDataProvider('agentSwitchboard.approvals', this.track(new ApprovalsTree(this.manager))),
      // The whole diff behind a card's "Open full diff", from the session's own state.
      registerCardDiffs((key) => this.manager.get(key)?.state),
      registerTreeDataProvider('agentSwitchboard.grants', this.track(new GrantsTree(this.policy, this.workspaceSettings))),
      ...registerCommands(this),
      ...registerPermissionKeys({
        sessions: () => this.manager.list(),
        inView: () => [...(this.view.visible && this.view.current ? [this.view.current] : []), ...this.sessionPanels.keys().filter((k) => this.sessionPanels.visible(k))],
        focused: () => this.focusedCards.get(),
      }),
    );
    // The sessions the last window had open come back as transcripts (Resume takes them up again),
    // after activation: replaying a long journal must not hold up the extension host's start.
    setImmediate(() => {
      const restored = this.sessionsCenter.restoreOpen();
      if (restored) this.log.info(`Restored ${restored} session transcript${restored > 1 ? 's' : ''} from the journal.`);
    });
    // The audit log's key and tail check, in the background (SecretStorage must not hold up activation).
    setImmediate(() => void this.audit.open().then((o) => this.auditOpened(o.problems)));
    // Read once, in the background: agents are resolved again when it arrives.
    void readLoginShellPath().then((p) => {
      this.loginPath = p ?? null;
      if (p) this.log.info(`Login shell PATH: ${p}`);
      this.agentCache = undefined;
      this.view.onAgentsChange();
      this.walkthrough.agentsChanged();
    });
  }

  /** Records something already done (an MCP approval, a delegation) once the audit log is open. */
  private auditLater(entry: AuditEntry): void {
    void this.audit.appendWhenOpen(entry).catch((err: unknown) => this.log.error(`Could not write the audit log: ${String(err)}`));
  }

  /** What the audit log found wrong with itself on start: logged, and shown once with a way to the details. */
  private auditOpened(problems: string[]): void {
    for (const p of problems) this.log.warn(p);
    if (!problems.length) return;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more finding${problems.length > 2 ? 's' : ''})` : '';
    void vscode.window.showWarningMessage(text`${problems[0]}${more}`, 'Verify Audit Log').then((choice) => {
      if (choice) void vscode.commands.executeCommand('agentSwitchboard.verifyAudit');
    });
  }

  /** The editor's environment with the login shell's PATH merged in (agents, their terminals, npm). */
  private agentBaseEnv(): NodeJS.ProcessEnv {
    return this.loginPath ? { ...process.env, PATH: mergePaths(process.env.PATH, this.loginPath) } : process.env;
  }

  private track<T extends vscode.Disposable>(d: T): T {
    this.disposables.push(d);
    return d;
  }

  /**
   * The settings, read once per change: reading them asks VS Code for every key and layer (~2 ms),
   * and hot paths (each streamed update of 50 sessions, issue 22) must not pay that. Dropped when the
   * configuration, the workspace's trust or its folders change (registered first in the constructor,
   * so every other listener reads the new values).
   */
  private settings(): Settings {
    return (this.settingsCache ??= readSettings((problem) => this.log.warn(problem)));
  }

  /** Agents from settings, presets (resolved on PATH) and the offline demo agent. */
  resolvedAgents(): ResolvedAgent[] {
    if (!this.agentCache) {
      const demoScript = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'demo-agent.js').fsPath;
      const { agents, problems } = resolveAgents(this.settings().agents, {
        pathEnv: process.env.PATH,
        loginPath: this.loginPath,
        // The extension host's own runtime runs the demo; in Electron it must act as plain Node.
        demo: { command: process.execPath, args: [demoScript], env: { ELECTRON_RUN_AS_NODE: '1' } },
      });
      // The PATHs searched for a command not found go to the log (the picker says it in one
      // sentence); invalid entries are in the picker with their problem, and a notification
      // with the way to the entry says so once per new problem.
      const fresh = problems.filter((p) => !this.agentProblemsSaid.has(p));
      for (const a of agents) {
        const line = a.detail ? `${a.id}: ${a.detail}` : undefined;
        if (line && !this.agentProblemsSaid.has(line)) {
          this.agentProblemsSaid.add(line);
          this.log.info(line);
        }
      }
      for (const p of fresh) {
        this.agentProblemsSaid.add(p);
        this.log.warn(p);
      }
      if (fresh.length) {
        const first = agents.find((a) => a.invalidEntry !== undefined && !a.available);
        const more = fresh.length > 1 ? ` (and ${fresh.length - 1} more)` : '';
        void vscode.window.showWarningMessage(text`${fresh[0]}${more}`, vscode.l10n.t('Open Settings')).then((choice) => {
          if (choice) void showUnavailableAgents(this.resolvedAgents(), this.log, first?.id);
        });
      }
      this.agentCache = agents;
    }
    return this.agentCache;
  }

  /** Agents as offered in pickers. */
  agents(): AgentChoice[] {
    return this.resolvedAgents().map((a) => ({ id: a.id, name: a.name, available: a.available, reason: a.reason, demo: a.demo, ...(a.invalidEntry !== undefined ? { invalid: true } : {}), ...(a.unavailable ? { unavailable: a.unavailable } : {}), ...(a.problem ? { problem: a.problem } : {}) }));
  }

  /**
   * Starts a session and shows it. Requires a trusted workspace with a folder (agents run
   * programs and edit files). `interactive` (a start from the sidebar): an agent that answers
   * "authentication required" gets its login methods offered and one more try (SessionManager.start).
   * @throws Error with an actionable message.
   */
  async startSession(agentId: string, cwd?: string, interactive = false, worktree?: WorktreeFrom): Promise<string> {
    if (!vscode.workspace.isTrusted) throw new Error('Agent Switchboard starts agents only in a trusted workspace: agents run programs and edit files. Trust this workspace first.');
    // ACP needs an absolute working folder; a relative one would mean the extension host's own.
    if (cwd !== undefined && !path.isAbsolute(cwd)) throw new Error(`The session's folder must be an absolute path (ACP session/new requires one); "${cwd}" is relative.`);
    const folder = cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) throw new Error('Open a folder first: an agent session works in a workspace folder.');
    // In a worktree of its own (issue 20): made before the agent starts, which then works only there.
    const wt = worktree ? await this.worktrees.create(folder, agentId, worktree) : undefined;
    // `interactive`: the person started it, so a login the agent asks for is offered at once (the
    // API's starts ask nobody and fail with the agent's error).
    const pending = this.manager.start(agentId, wt?.cwd ?? folder, interactive ? this.login?.authPort() : undefined, wt && { id: wt.id, dir: wt.dir, branch: wt.branch, repo: wt.repo });
    // Show the session (status "starting") at once, so launch errors appear in the sidebar.
    const latest = this.manager.list().at(-1);
    if (latest) void this.view.show(latest.state.key);
    // The thread says when the workspace's settings changed the gate this session runs under.
    const note = this.workspaceSettings.sessionNotice();
    if (latest && note) latest.notice(note.severity, note.text);
    if (wt && latest) void this.worktrees.attach(wt.id, latest.state.key);
    try {
      return (await pending).state.key;
    } catch (err) {
      // "Authentication required": the way out is one click away.
      if ((err as { code?: unknown })?.code === -32000) {
        void vscode.window.showErrorMessage(text`${latest?.state.agentName ?? agentId} needs a login before it starts a session.`, 'Log In…').then((choice) => {
          if (choice) void runVouched('agentSwitchboard.logIn', [agentId]);
        });
      }
      throw err;
    }
  }

  /**
   * Sends (or queues) `text` with its attachments. They are checked now (a path outside the
   * workspace, an image for an agent that takes none: refused, nothing sent) and read again when
   * the turn starts, so a queued prompt carries the files as they are then.
   */
  private async sendWithContext(key: string, text: string, context?: ContextItem[]): Promise<'sent' | 'queued'> {
    const c = this.session(key);
    if (!context?.length) return c.send(text);
    // A session in a worktree attaches files of its worktree too (the workspace's as everywhere).
    const w = c.state.worktree;
    const port: ContextPort = w
      ? { contained: (f) => checkContained(f, [w.dir, ...(vscode.workspace.workspaceFolders ?? []).map((x) => x.uri.fsPath)]), readText: (f, max) => this.promptContext.readText(f, max), relative: (f) => (isWithin(w.dir, f) ? path.relative(w.dir, f) : this.promptContext.relative(f)) }
      : this.promptContext;
    const build = () => buildPromptContext(context, c.state.promptCapabilities, port);
    const { labels } = await build();
    this.sentContext.note(key, text, context, labels);
    return c.send(text, { labels, blocks: async () => (await build()).blocks });
  }

  private session(key: string): SessionController {
    const c = this.manager.get(key);
    if (!c) throw new Error(`No session "${key}".`);
    return c;
  }

  async prompt(key: string, text: string): Promise<{ stopReason: string }> {
    const res = await this.session(key).prompt(text);
    // Snapshots are read asynchronously: the turn's changes are in the review when this returns.
    await this.review.settled();
    return { stopReason: res.stopReason };
  }

  async cancel(key: string): Promise<void> {
    await this.session(key).cancel();
  }

  /**
   * The MCP servers for session `key`'s agent: the person's (approved, resolved now) and, unless
   * turned off (`agentSwitchboard.editorMcpServer`), the editor's own server with a token for
   * this session only.
   */
  private async forwardMcp(caps: McpCapabilities | undefined, key: string): Promise<ForwardResult> {
    const candidates = await this.mcp.forwardable();
    // Stdio servers with an approved folder or removed variables start through our launcher,
    // with the runtime VS Code runs on (as plain Node), so the agent runs them as approved.
    const launcher = { command: process.execPath, args: [vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'mcp-launch.js').fsPath], env: { [RUN_AS_NODE]: '1' } };
    const result = forwardServers(candidates, caps, launcher);
    // Which servers this session's agent holds, to tell it if their tools change later.
    const given = new Set(result.report.filter((r) => r.sent).map((r) => r.name));
    this.mcpGiven.set(key, new Set(candidates.filter((c) => given.has(c.definition.name)).map((c) => c.definition.id)));
    if (!this.settings().editorMcpServer) return result;
    try {
      const url = await this.editorMcp.start();
      const token = this.editorMcp.tokenFor(key);
      if (caps?.http) result.servers.push({ type: 'http', name: 'editor', url, headers: [{ name: 'Authorization', value: `Bearer ${token}` }] });
      else {
        // Agents without HTTP MCP start our stdio bridge with the runtime VS Code runs on (as plain Node).
        const bridge = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'mcp-bridge.js').fsPath;
        result.servers.push({
          name: 'editor',
          command: process.execPath,
          args: [bridge],
          env: [
            { name: 'ELECTRON_RUN_AS_NODE', value: '1' },
            { name: 'AGENT_SWITCHBOARD_MCP_URL', value: url },
            { name: 'AGENT_SWITCHBOARD_MCP_TOKEN', value: token },
          ],
        });
      }
      result.report.push({ name: 'editor', sent: true, builtin: true });
    } catch (err) {
      result.report.push({ name: 'editor', sent: false, reason: `it could not start: ${err instanceof Error ? err.message : String(err)}` });
    }
    return result;
  }

  async closeSession(key: string): Promise<void> {
    // Closed by the person (or the API): not shown again after a reload, still in the history.
    const journalId = this.manager.journalIdOf(key);
    if (journalId) this.journal.setOpen(journalId, false);
    // The person closed it: the agent is asked to close it too (`session/close`, when offered).
    await this.manager.close(key, { byPerson: true });
  }

  /** A session left the list (closed, replaced when taken up again, or at window end): its tokens and trace go. */
  private sessionClosed(key: string, agentName: string): void {
    this.editorMcp.revoke(key);
    this.mcpGiven.delete(key);
    this.terminals.delete(key);
    // The agent is gone: its receiver token goes with it; its trace is saved and leaves memory.
    this.tracing.sessionClosed(key, `${agentName} ${key}`);
  }

  showTerminal(key: string, terminalId: string): void {
    const t = this.terminals.get(key);
    if (!t) return;
    const fallback = this.manager.get(key)?.state.terminals[terminalId];
    showTerminal(t.manager, terminalId, fallback, `Agent: ${fallback?.commandLine.slice(0, 40) ?? terminalId}`);
  }

  /** The public API returned by `activate()`. */
  api(): SwitchboardApi {
    return {
      apiVersion: 1,
      agents: () => this.agents(),
      startSession: ({ agentId, cwd, worktree }) => this.startSession(agentId, cwd, false, worktree),
      worktrees: async () => (await this.worktrees.worktrees()).list().map(({ id, branch, dir, repo, base, state, sessionKey }) => ({ id, branch, dir, repo, base, state, ...(sessionKey ? { sessionKey } : {}) })),
      comparison: (id, opts) => (opts?.settled ? this.compare.settled(id) : Promise.resolve(this.compare.get(id))),
      prompt: (key, text) => this.prompt(key, text),
      send: (key, text) => this.session(key).send(text),
      sendWithContext: (key, text, context) => this.sendWithContext(key, text, ContextItemSchema.array().max(50).parse(context)),
      setMode: (key, modeId) => this.session(key).setMode(modeId),
      setConfigOption: (key, configId, value) => this.session(key).setConfigOption(configId, value),
      cancel: (key) => this.cancel(key),
      session: (key) => {
        const s = this.manager.get(key)?.state;
        return s ? structuredClone(s) : undefined;
      },
      sessions: () => summarizeAll(this.manager.list()),
      onDidChangeSession: (listener) =>
        this.manager.onDidChangeSession((c) => {
          const state = this.manager.get(c.key)?.state;
          if (state) listener({ key: c.key, patches: c.patches, state });
        }),
      answerPermission: (key, pid, oid, options) => this.manager.get(key)?.answerPermission(pid, oid, 'api', options?.grant) ?? false,
      runCommand: (command, ...args) => runVouched(command, args),
      grants: () => this.policy.grants.list(Date.now()).map((g) => structuredClone(g)),
      gateSettings: () => ({ policy: structuredClone(this.settings().policy), agentIds: this.resolvedAgents().map((a) => a.id), workspace: this.workspaceSettings.get() }),
      mcpServers: () =>
        this.mcp.host.list().map((s) => ({
          id: s.definition.id,
          name: s.definition.name,
          source: s.definition.source,
          held: s.held,
          catalogChanged: this.mcp.catalogChange(s.definition.id),
          catalogChangeDetails: this.mcp.changeDetails(s.definition.id),
          state: s.connection ? structuredClone(s.connection.state) : undefined,
          tools: s.connection?.catalog.tools.map((t) => t.name) ?? [],
          // Items the server listed that were left out (bad schema), one line each.
          problems: s.connection?.catalog.problems.map(describeProblem) ?? [],
        })),
      changes: (sessionKey) =>
        this.review.model.turns(sessionKey).map((t) => ({ ...t, files: t.files.map(({ base, ...f }) => structuredClone({ ...f, base: { text: base.text, ...(base.uncertain !== undefined ? { uncertain: base.uncertain } : {}) } })) })),
      revokeGrant: (id) => this.policy.revokeGrant(id, 'api'),
      traceSpans: (sessionKey) => structuredClone(this.tracing.traces.spans(sessionKey)),
      remoteAgents: () => structuredClone(this.remoteAgents.list()),
      capabilities: (key) => this.manager.get(key)?.capabilities?.rows() ?? [],
      agentCapabilities: (agentId) => structuredClone(this.capabilityBook.list(agentId)),
      protocolLog: (key) => {
        const log = this.manager.get(key)?.protocol;
        return log ? log.all().map((e) => log.summary(e)) : [];
      },
allowSandboxHost: (key, terminalId, host) => this.session(key).allowHostAndRerun(terminalId, host),
            closeSession: (key) => this.closeSession(key),
      sessionHistory: () => structuredClone(this.journal.list()),
      restoreSession: (journalId) => this.manager.restore(journalId).state.key,
      resumeSession: (target) => {
        const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
        if ('key' in target) return this.sessionsCenter.resume({ kind: 'live', key: target.key });
        if ('journalId' in target) return this.sessionsCenter.resume({ kind: 'past', journalId: target.journalId });
        return this.sessionsCenter.resume({ kind: 'listed', agentId: target.agentId, sessionId: target.sessionId, cwd });
      },
      agentSessions: async (agentId) => {
        if (!vscode.workspace.isTrusted) throw new Error('Agent Switchboard starts agents only in a trusted workspace.');
        const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
        if (!cwd) throw new Error('Open a folder first.');
        const r = await this.manager.listAgentSessions(agentId, cwd);
        this.sessionsCenter.tree.setListed(agentId, r.supported ? { sessions: r.sessions } : { note: 'This agent does not list its sessions.' });
        return structuredClone(r);
      },
    };
  }

  /**
   * Opens a session (the one in view without a key) as Markdown or JSON, redacted; the format is
   * asked for when not given. @returns the text, or undefined when there is no session or no choice.
   */
  private async exportSession(key?: string, format?: 'markdown' | 'json', fileContents = false): Promise<string | undefined> {
    const c = this.sessionInView(key);
    if (!c) return void vscode.window.showInformationMessage(text`There is no session to export.`);
    let chosen = format;
    if (!chosen) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'Markdown', description: 'the conversation, tool calls and decisions', format: 'markdown' as const },
          { label: 'JSON', description: 'the whole session state', format: 'json' as const },
        ],
        { title: text`Export the session with ${c.state.agentName}`, placeHolder: 'Secrets are removed; file contents are left out' },
      );
      if (!pick) return undefined;
      chosen = pick.format;
    }
    const exported = chosen === 'json' ? sessionToJson(c.state, { fileContents }) : sessionToMarkdown(c.state, { fileContents });
    const doc = await vscode.workspace.openTextDocument({ content: exported, language: chosen === 'json' ? 'json' : 'markdown' });
    await vscode.window.showTextDocument(doc, { preview: false });
    return exported;
  }

  /** Session `key`, or without a key the one in the sidebar (else the newest). */
  private sessionInView(key?: string): SessionController | undefined {
    return key ? this.manager.get(key) : (this.view.current && this.manager.get(this.view.current)) || this.manager.list().at(-1);
  }

  /**
   * Opens an agent's capability matrix per version (declared, exercised, failed, over all its
   * sessions) as Markdown. `arg`: an agent id or a Sessions view agent node; asked for otherwise.
   * @returns the Markdown, or undefined when no agent was chosen.
   */
  private async showAgentCapabilities(arg?: unknown): Promise<string | undefined> {
    let agentId = typeof arg === 'string' ? arg : arg && typeof arg === 'object' && typeof (arg as { agentId?: unknown }).agentId === 'string' ? (arg as { agentId: string }).agentId : undefined;
    // The configured name wins over the name the agent gave in `initialize`.
    const known = new Map([...this.capabilityBook.list().map((v) => [v.agentId, v.name] as const), ...this.resolvedAgents().map((a) => [a.id, a.name] as const)]);
    if (!agentId) {
      const pick = await vscode.window.showQuickPick([...known].map(([id, name]) => ({ label: inert(name, { max: 120 }), description: inert(id), id })), { title: 'Capabilities of which agent?' });
      agentId = pick?.id;
    }
    if (!agentId) return undefined;
    const text = capabilitiesMarkdown(known.get(agentId) ?? agentId, this.capabilityBook.list(agentId));
    const doc = await vscode.workspace.openTextDocument({ content: text, language: 'markdown' });
    await vscode.window.showTextDocument(doc, { preview: true });
    return text;
  }

  /** Opens the protocol inspector of a session (the one in view without a key). @returns whether it opened. */
  private showInspector(key?: string): boolean {
    const c = this.sessionInView(key);
    const protocol = c?.protocol;
    const init = c?.agentInit;
    const capabilities = c?.capabilities;
    if (!c || !protocol || !init || !capabilities) {
      if (c) void vscode.window.showInformationMessage(text`The agent is still starting; its messages appear once it is connected.`);
      else void vscode.window.showInformationMessage(text`Start a session first; the messages to and from its agent appear here.`);
      return false;
    }
    this.inspectors.show(c.state.key, `${c.state.agentName} (${c.state.key})`, protocol, init, capabilities);
    return true;
  }

  /** Opens the trace panel of a session (the one in view without a key). @returns whether a panel opened. */
  private showTrace(key?: string): boolean {
    const c = this.sessionInView(key);
    if (!c) {
      void vscode.window.showInformationMessage(text`Start a session first; its trace appears as it runs.`);
      return false;
    }
    this.tracing.panels.show(c.state.key, `${c.state.agentName} (${c.state.key})`);
    return true;
  }

  /** Shows the audit record of a decision, as a person reads it, read-only (`views/auditRecord.ts`). */
  private async openAuditRecord(intentHash: string): Promise<void> {
    await this.auditRecords.open(intentHash);
  }

  /** Logs what loaded the extension after activation and what that cost (issue 22, PF6). */
  started(trigger: string, ms: number): void {
    this.log.info(`Loaded on first use (${trigger}) in ${Math.round(ms)} ms.`);
  }

  /** The extension's `deactivate`: ends every agent and terminal process group, and waits for it. */
  async shutdown(): Promise<void> {
    await this.manager.dispose();
  }

  dispose(): void {
    // Agents and terminals are process groups: end them all, even though we cannot await here.
    // Each session leaves the list synchronously first, so its trace is saved (sessionClosed).
    void this.manager.dispose();
    this.journal.flush(true);
    this.capabilityBook.save();
    this.disposables.forEach((d) => d.dispose());
    void this.sandboxes.dispose();
  }
}
