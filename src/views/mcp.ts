/**
 * The MCP host in the editor: gathers server definitions (settings, `.vscode/mcp.json`,
 * `.mcp.json`), holds back workspace-defined servers until the person approves them (again after
 * any change) and in untrusted workspaces, resolves `${input:…}` from SecretStorage, runs the
 * servers through {@link McpHost}, and offers the MCP Servers explorer with its actions.
 */
import * as vscode from 'vscode';
import { createTreeView } from '../activation/vscodeRegistry';
import { realpathAllowMissing } from '../fs/containment';
import { readRegularFileOrNull, UnreadableFileError } from '../fs/safeRead';
import * as os from 'node:os';
import { approvalDialog, approvalHash, approvalStanding, approvesDefinition, inputSecretKey, type InputScope, type McpSandbox } from '../mcp/approval';
import { inputReferences, parseDotMcpJson, parseServerMap, parseVscodeMcpJson, resolveTransport, type McpInputSpec, type McpServerDefinition, type McpTransportSpec } from '../mcp/config';
import { registerGuardedCommand } from './guardedCommands';
import type { ForwardCandidate } from '../mcp/forward';
import { describeDiff, diffCatalog, pinCatalog, type CatalogDiff, type CatalogPins } from '../mcp/pinning';
import { McpHost, startupBudgetFrom, type ResolvedServer } from '../mcp/host';
import type { McpConnectionOptions } from '../mcp/connection';
import { describeProblem } from '../mcp/catalog';
import { McpTree, parseMcpNode, type McpNode } from './mcpTree';
import { askInPanel } from './elicitation';
import { McpSignIn } from './mcpSignIn';
import { McpRunner } from './mcpRun';
import type { AuditEntry } from '../policy/audit';
import type { SandboxProfile } from '../sandbox/profile';
import { reachHash } from '../sandbox/reach';
import { inert, text } from '../common/untrustedText';
import { approvalText } from '../common/approvalText';
import { urlTarget } from '../elicitation/url';
import { openCheckedUrl } from './openUrl';

const APPROVED_KEY = 'agentSwitchboard.mcp.approved';
const PINS_KEY = 'agentSwitchboard.mcp.pins';
/** The accepted description of each tool, to show what a changed catalog changed. */
const ACCEPTED_KEY = 'agentSwitchboard.mcp.acceptedTools';
const SECTION = 'agentSwitchboard';
/** The longest a `session/new` waits for the servers it forwards to start here and list their tools. */
const FORWARD_WAIT_MS = 15_000;

/** Largest `.vscode/mcp.json` / `.mcp.json` read, in bytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The MCP Servers view and its commands. */
export class McpCenter implements vscode.Disposable {
  readonly host: McpHost;
  private readonly tree: McpTree;
  private readonly view: vscode.TreeView<McpNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private inputs: McpInputSpec[] = [];
  private started = false;
  private reloadSeq = 0;
  /** Problems already logged, so a reload does not repeat them. */
  private readonly reported = new Set<string>();
  private ticker: NodeJS.Timeout | undefined;
  /** Servers whose tools changed since the person accepted them, with what changed. */
  private readonly catalogChanges = new Map<string, CatalogDiff>();
  private readonly catalogEmitter = new vscode.EventEmitter<{ definition: McpServerDefinition; description: string }>();
  /** Fires when a server's tools change from what the person accepted (sessions that have it are told). */
  readonly onDidChangeCatalog = this.catalogEmitter.event;
  private readonly signIn: McpSignIn;
  private readonly runner: McpRunner;
  /** The startup budget (ms), read from the setting whenever a server starts: a change needs no reload. */
  private readonly startupBudget = startupBudgetFrom(() => vscode.workspace.getConfiguration(SECTION));

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: (message: string) => void,
    audit: (entry: AuditEntry) => void,
    tracing?: Pick<McpConnectionOptions, 'tracer' | 'otelEnv'>,
    /**
     * Starts stdio servers in the sandbox where asked (issue 21); `wanted` says whether a definition
     * will run sandboxed, `profile` the profile of a server started in `cwd` (or why there is none).
     */
    private readonly sandbox?: {
      launch: NonNullable<McpConnectionOptions['sandboxLaunch']>;
      wanted(t: McpTransportSpec): boolean;
      profile(cwd: string | undefined): Promise<{ profile: SandboxProfile } | { unavailable: string }>;
    },
  ) {
    const version = String(context.extension.packageJSON.version ?? '0.0.0');
    this.signIn = new McpSignIn(context.secrets);
    this.host = new McpHost({
      clientInfo: { name: 'agent-switchboard', version },
      // Asked at each start: a changed setting applies to the next server that starts, without a reload.
      startupBudgetMs: this.startupBudget,
      baseEnv: process.env,
      elicit: (request, signal) => askInPanel({ extensionUri: context.extensionUri, audit, log }, request, signal),
      oauth: { store: this.signIn.store, port: this.signIn, options: { clientName: 'Agent Switchboard (VS Code)' } },
      ...tracing,
      ...(sandbox ? { sandboxLaunch: sandbox.launch } : {}),
    });
    this.runner = new McpRunner(context, this.host, log);
    this.tree = new McpTree(this.host, (id) => this.catalogChanges.get(id), (id) => this.changeDetails(id));
    this.view = createTreeView('agentSwitchboard.mcp', this.tree);
    const watcher = vscode.workspace.createFileSystemWatcher('**/{.vscode/mcp.json,.mcp.json}');
    const reload = () => void this.reload();
    this.disposables.push(
      this.signIn,
      this.view,
      this.tree,
      watcher,
      watcher.onDidChange(reload),
      watcher.onDidCreate(reload),
      watcher.onDidDelete(reload),
      // The sandbox's settings change the profile a server runs in, which its approval is bound to.
      vscode.workspace.onDidChangeConfiguration((e) => ['mcpServers', 'sandbox', 'sandboxMcpServers', 'sandboxAllowedHosts', 'sandboxBubblewrapPath'].some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) && reload()),
      vscode.workspace.onDidGrantWorkspaceTrust(reload),
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
      // Servers start when the person first looks at them (or when asked to), not with every window.
      this.view.onDidChangeVisibility((e) => e.visible && this.startAll()),
      this.host.onDidChange(() => this.onHostChange()),
      this.runner,
      registerGuardedCommand('agentSwitchboard.mcp.start', () => this.startAll()),
      registerGuardedCommand('agentSwitchboard.mcp.restart', (n: unknown) => this.restart(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.openSignIn', (n: unknown) => this.openSignIn(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.signOut', (n: unknown) => this.signOut(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.approve', (n: unknown, confirmed?: unknown) => this.approve(parseMcpNode(n), confirmed === true), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.acceptCatalog', (n: unknown) => this.acceptCatalog(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.provideInputs', (n: unknown) => this.provideInputs(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.runTool', (n: unknown, args?: unknown) => this.runner.runTool(parseMcpNode(n), args), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.runToolJson', (n: unknown) => this.runner.runTool(parseMcpNode(n), undefined, true), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.readResource', (n: unknown) => this.runner.readResource(parseMcpNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.mcp.getPrompt', (n: unknown) => this.runner.getPrompt(parseMcpNode(n)), { nodes: true }),
    );
  }

  /** Starts the configured servers (once); later changes of the definitions are applied as they come. */
  async startAll(): Promise<void> {
    this.started = true;
    await this.reload();
  }

  /** Re-reads every definition and reconciles the running servers. */
  async reload(): Promise<void> {
    if (!this.started) return;
    // Reloads overlap (a settings change and a file change at once): only the newest one applies.
    const seq = ++this.reloadSeq;
    // The OAuth redirect URI must be known before an HTTP server can ask for a sign-in.
    await this.signIn.ready();
    const { wanted, held } = await this.plan();
    if (seq === this.reloadSeq) this.host.reconcile(wanted, held);
  }

  /**
   * The servers to hand an agent at `session/new`, in definition order: each resolved (inputs and
   * secrets filled in now) or held back with the reason. A server is handed on only as approved now
   * (its definition's hash matches the approval, the workspace is trusted) and only once the
   * editor's own connection to exactly that resolved transport has listed its tools and they match
   * what the person accepted; the servers are started here for that, waiting at most
   * {@link FORWARD_WAIT_MS} for them.
   */
  async forwardable(): Promise<ForwardCandidate[]> {
    this.started = true;
    await this.signIn.ready();
    const seq = ++this.reloadSeq;
    const { wanted, held, order } = await this.plan();
    // The host runs exactly what is forwarded, so its catalog check is about the same server.
    if (seq === this.reloadSeq) this.host.reconcile(wanted, held);
    await this.settled(wanted, Math.min(FORWARD_WAIT_MS, this.startupBudget()));
    this.checkCatalogs();
    return order.flatMap((id): ForwardCandidate[] => {
      const h = held.find((x) => x.definition.id === id);
      if (h) return [{ definition: h.definition, held: h.reason }];
      const w = wanted.find((x) => x.definition.id === id);
      return w ? [this.forwardCheck(w)] : [];
    });
  }

  /** Whether the editor's own connection vouches for `w`: running it as resolved, listed, tools as accepted. */
  private forwardCheck(w: ResolvedServer): ForwardCandidate {
    const c = this.host.connectionAs(w.definition.id, w.transport);
    const hold = (reason: string): ForwardCandidate => ({ definition: w.definition, held: reason });
    // A server that fails here would fail in the agent too: it is held with the reason.
    if (c?.state.state === 'error') return hold(`it failed to start here: ${c.state.message.replace(/^MCP server "[^"]*" /, '')}`);
    if (c?.state.state === 'starting' && c.state.signIn) return hold('it waits for you to sign in here (MCP Servers view)');
    if (!c || c.state.state !== 'running' || !c.listed) return hold(`its tools are not checked yet: it is ${c?.state.state === 'starting' ? 'still starting' : 'not running'} here (it is given to sessions started once it runs)`);
    // An agent starts its own copy of a stdio server, outside our sandbox: one that runs sandboxed
    // here is not handed on (issue 21), so the agent learns nothing it could run unconfined.
    if (w.transport.type === 'stdio' && this.sandbox?.wanted(w.transport)) return hold('it runs sandboxed here, and an agent would start its own copy outside the sandbox');
    // A server whose tools changed since the person accepted them is not handed to agents.
    const diff = this.catalogChanges.get(w.definition.id);
    if (diff) return hold(describeDiff(diff));
    return { definition: w.definition, transport: w.transport };
  }

  /** Waits until each wanted server runs exactly as resolved and has listed its tools, or failed, or `ms` passed. */
  private async settled(wanted: ResolvedServer[], ms: number): Promise<void> {
    const done = () =>
      wanted.every((w) => {
        const c = this.host.connectionAs(w.definition.id, w.transport);
        const st = c?.state;
        return !st || st.state === 'error' || st.state === 'stopped' || (st.state === 'starting' && !!st.signIn) || (st.state === 'running' && c!.listed);
      });
    if (done()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      const sub = this.host.onDidChange(() => done() && finish());
      function finish() {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  }

  /** Pins each server's first listed catalog; marks a later one that differs as changed. */
  private checkCatalogs(): void {
    const pins = this.context.workspaceState.get<Record<string, CatalogPins>>(PINS_KEY, {});
    let stored = false;
    for (const s of this.host.list()) {
      const c = s.connection;
      if (!c || !c.listed || c.state.state !== 'running') continue;
      const now = pinCatalog(c.catalog.tools);
      const pinned = pins[s.definition.id];
      if (!pinned) {
        pins[s.definition.id] = now;
        this.storeAccepted(s.definition.id, c.catalog.tools);
        stored = true;
        continue;
      }
      const diff = diffCatalog(pinned, now);
      if (diff) {
        const known = this.catalogChanges.get(s.definition.id);
        this.catalogChanges.set(s.definition.id, diff);
        if (JSON.stringify(known) !== JSON.stringify(diff)) this.catalogEmitter.fire({ definition: s.definition, description: describeDiff(diff) });
      }
      else this.catalogChanges.delete(s.definition.id);
    }
    if (stored) void this.context.workspaceState.update(PINS_KEY, pins);
  }

  /** The person accepts a server's changed tools: they become its pins. */
  private async acceptCatalog(n: McpNode): Promise<void> {
    const c = this.host.connection(n.serverId);
    const pins = this.context.workspaceState.get<Record<string, CatalogPins>>(PINS_KEY, {});
    await this.context.workspaceState.update(PINS_KEY, { ...pins, [n.serverId]: pinCatalog(c.catalog.tools) });
    this.storeAccepted(n.serverId, c.catalog.tools);
    this.catalogChanges.delete(n.serverId);
    this.tree.refresh();
  }

  private storeAccepted(id: string, tools: readonly { name: string; description?: string }[]): void {
    const all = this.context.workspaceState.get<Record<string, Record<string, string>>>(ACCEPTED_KEY, {});
    void this.context.workspaceState.update(ACCEPTED_KEY, { ...all, [id]: Object.fromEntries(tools.map((t) => [t.name, t.description ?? ''])) });
  }

  /**
   * What changed, tool by tool, between the accepted catalog and the current one: the description
   * before and now (shortened), new and removed tools. For the person deciding whether to accept.
   */
  changeDetails(id: string): string[] {
    const diff = this.catalogChanges.get(id);
    const tools = this.host.list().find((s) => s.definition.id === id)?.connection?.catalog.tools ?? [];
    if (!diff) return [];
    const accepted = this.context.workspaceState.get<Record<string, Record<string, string>>>(ACCEPTED_KEY, {})[id] ?? {};
    const short = (t: string) => (t.length > 300 ? `${t.slice(0, 299)}…` : t);
    const now = (name: string) => tools.find((t) => t.name === name)?.description ?? '';
    return [
      ...diff.changed.map((n) => (accepted[n] !== undefined && accepted[n] !== now(n) ? `${n}: was "${short(accepted[n])}" — now "${short(now(n))}"` : `${n}: its schema or hints changed`)),
      ...diff.added.map((n) => `${n} (new): "${short(now(n))}"`),
      ...diff.removed.map((n) => `${n} (removed)`),
    ];
  }

  /** What changed in a server's tools since they were accepted, if anything. */
  catalogChange(id: string): string | undefined {
    const d = this.catalogChanges.get(id);
    return d && describeDiff(d);
  }

  /** Which servers may run (resolved) and which are held back, and why. */
  private async plan(): Promise<{ wanted: ResolvedServer[]; held: { definition: McpServerDefinition; reason: string }[]; order: string[] }> {
    const { servers, inputs, problems } = await this.definitions();
    this.inputs = inputs;
    for (const p of problems.filter((x) => !this.reported.has(x))) {
      this.reported.add(p);
      this.log(p);
    }
    const approved = this.context.workspaceState.get<Record<string, string>>(APPROVED_KEY, {});
    const wanted: ResolvedServer[] = [];
    const held: { definition: McpServerDefinition; reason: string }[] = [];
    for (const d of servers) {
      if (!d.enabled) {
        held.push({ definition: d, reason: 'disabled' });
        continue;
      }
      // Even a server from user settings would run in the folder (npx reads its .npmrc, for one).
      if (!vscode.workspace.isTrusted) {
        held.push({ definition: d, reason: 'workspace not trusted' });
        continue;
      }
      const asks = d.source !== 'settings' || !!d.file;
      if (asks && !approvesDefinition(approved[d.id], d)) {
        held.push({ definition: d, reason: approved[d.id] ? 'changed since you approved it: approve again' : 'defined by the workspace: approve to start' });
        continue;
      }
      const r = await this.resolve(d);
      if ('held' in r) {
        held.push({ definition: d, reason: r.held });
        continue;
      }
      // How it runs is part of what was approved: a profile other than the approved one asks again.
      const sandbox = await this.sandboxOf(r.transport);
      if (asks && approvalStanding(approved[d.id], d, sandbox) !== 'approved') {
        held.push({ definition: d, reason: 'its sandbox changed since you approved it: approve again' });
        continue;
      }
      const transport = sandbox.kind === 'profile' && r.transport.type === 'stdio' ? { ...r.transport, sandboxReach: reachHash(sandbox.profile) } : r.transport;
      wanted.push({ definition: d, transport });
    }
    return { wanted, held, order: servers.map((d) => d.id) };
  }

  /** `d` with its inputs (from SecretStorage) and variables resolved, or why it is held. */
  private async resolve(d: McpServerDefinition, opts: { cwdOnly?: boolean } = {}): Promise<{ transport: McpTransportSpec } | { held: string }> {
    const values: Record<string, string> = {};
    const missing: string[] = [];
    for (const id of inputReferences(d)) {
      const v = await this.context.secrets.get(inputSecretKey(this.inputScope(d), d, id));
      if (v === undefined) missing.push(id);
      else values[id] = v;
    }
    // Only its folder (what its sandbox profile depends on), when other inputs are not given yet.
    const t = opts.cwdOnly && d.transport.type === 'stdio' ? { type: 'stdio' as const, command: '', args: [], env: {}, cwd: d.transport.cwd, ...(d.transport.sandbox ? { sandbox: true } : {}) } : d.transport;
    if (missing.length && !opts.cwdOnly) return { held: `needs input ${missing.join(', ')}` };
    const folder = d.file ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(d.file))?.uri.fsPath : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    try {
      const transport = resolveTransport(t, { inputs: values, env: process.env, workspaceFolder: folder });
      // A stdio server runs in the workspace folder unless it says otherwise.
      if (transport.type === 'stdio' && !transport.cwd && folder) transport.cwd = folder;
      return { transport };
    } catch (err) {
      return { held: err instanceof Error ? err.message : String(err) };
    }
  }

  /** How a resolved transport runs: not sandboxed, in its folder's profile, or sandboxed where the sandbox is not available. */
  private async sandboxOf(t: McpTransportSpec): Promise<McpSandbox> {
    if (t.type !== 'stdio' || !this.sandbox?.wanted(t)) return { kind: 'none' };
    const p = await this.sandbox.profile(t.cwd);
    return 'profile' in p ? { kind: 'profile', profile: p.profile } : { kind: 'unavailable', reason: p.unavailable };
  }

  /** Definitions from user settings (trusted), workspace settings and workspace files (both need approval). */
  private async definitions(): Promise<{ servers: McpServerDefinition[]; inputs: McpInputSpec[]; problems: string[] }> {
    const inspect = vscode.workspace.getConfiguration(SECTION).inspect<unknown>('mcpServers');
    const user = parseServerMap(inspect?.globalValue, 'settings', 'agentSwitchboard.mcpServers (user settings)');
    const out = { servers: [...user.servers], inputs: [] as McpInputSpec[], problems: [...user.problems] };
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (inspect?.workspaceValue !== undefined) {
      const file = vscode.workspace.workspaceFile?.fsPath ?? (folders[0] ? vscode.Uri.joinPath(folders[0].uri, '.vscode', 'settings.json').fsPath : 'workspace settings');
      const ws = parseServerMap(inspect.workspaceValue, 'settings', 'agentSwitchboard.mcpServers (workspace settings)', file);
      out.servers.push(...ws.servers.map((s) => ({ ...s, id: `workspace-${s.id}` })));
      out.problems.push(...ws.problems);
    }
    for (const f of folders) {
      for (const [rel, parse] of [['.vscode/mcp.json', parseVscodeMcpJson], ['.mcp.json', parseDotMcpJson]] as const) {
        const uri = vscode.Uri.joinPath(f.uri, rel);
        let text: string;
        try {
          // The repository decides what these names are: a FIFO or /dev/zero is refused, not waited on.
          const file = await readRegularFileOrNull(await realpathAllowMissing(uri.fsPath), { maxBytes: MAX_CONFIG_BYTES });
          if (!file) continue;
          text = new TextDecoder().decode(file.bytes);
        } catch (err) {
          if (err instanceof UnreadableFileError && err.reason !== 'error') out.problems.push(`${f.name}: ${rel} was not read (${err.reason === 'too_large' ? `larger than ${MAX_CONFIG_BYTES} bytes` : 'not a regular file'}).`);
          continue;
        }
        const parsed = parse(text, uri.fsPath);
        // Two folders may name servers alike: the folder keeps them apart.
        const prefix = folders.length > 1 ? `${f.name}/` : '';
        out.servers.push(...parsed.servers.map((s) => ({ ...s, id: `${prefix}${s.id}` })));
        out.inputs.push(...parsed.inputs);
        out.problems.push(...parsed.problems.map((p) => `${f.name}: ${p}`));
      }
    }
    return out;
  }

  private onHostChange(): void {
    this.checkCatalogs();
    this.logProblems();
    this.tree.refresh();
    // The "starting… N s" timer in the tree ticks while any server is starting.
    const starting = this.host.list().some((s) => s.connection?.state.state === 'starting');
    if (starting && !this.ticker) this.ticker = setInterval(() => this.tree.refresh(), 1000);
    if (!starting && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Logs each item a server listed that was left out, once (its name and reason are the server's text). */
  private logProblems(): void {
    for (const s of this.host.list()) {
      for (const p of s.connection?.catalog.problems ?? []) {
        const key = `problem\u0000${s.definition.id}\u0000${p.list}\u0000${p.name}\u0000${p.reason}`;
        if (this.reported.has(key)) continue;
        this.reported.add(key);
        this.log(`MCP server "${s.definition.name}": ${inert(describeProblem(p), { max: 1000 })} (the rest of its list is available).`);
      }
    }
  }

  private async restart(n: McpNode): Promise<void> {
    await this.host.connection(n.serverId).restart();
  }

  /** Opens the authorization page a server's sign-in waits on (the person's Sign In; again if they closed the tab). */
  private async openSignIn(n: McpNode): Promise<void> {
    const url = this.host.connection(n.serverId).signInUrl;
    if (!url) return void vscode.window.showInformationMessage(text`This server is not waiting for a sign-in.`);
    const target = urlTarget(url);
    if (!target.openable) return void vscode.window.showWarningMessage(text`The sign-in page was not opened: ${target.reason}`);
    await openCheckedUrl(target);
  }

  /** Forgets a server's OAuth credentials and restarts it, so its next use signs in again. */
  private async signOut(n: McpNode): Promise<void> {
    const c = this.host.connection(n.serverId);
    await c.signOut();
    await c.restart();
  }

  /**
   * Approves a workspace-defined server exactly as it is defined now, after the person confirms
   * (`confirmed` is for callers that already asked, such as the API and tests).
   */
  private async approve(n: McpNode, confirmed = false): Promise<void> {
    const s = this.host.list().find((x) => x.definition.id === n.serverId);
    if (!s) return;
    const d = s.definition;
    // The sandbox it will run in, as the start will compute it: the approval is given for that one.
    // (Its inputs may not be given yet: its folder alone decides the profile.)
    const resolved = await this.resolve(d);
    const forFolder = 'transport' in resolved ? resolved : await this.resolve(d, { cwdOnly: true });
    const boxed = d.transport.type === 'stdio' && !!this.sandbox?.wanted(d.transport);
    const sandbox: McpSandbox = 'transport' in forFolder ? await this.sandboxOf(forFolder.transport) : boxed ? { kind: 'pending', why: 'its folder takes an input not given yet' } : { kind: 'none' };
    // A modal dialog, not a notification: a notification cuts its text at 1,000 characters, and a
    // long URL or argument list would push the variables (where secrets go) out of sight. The
    // detail is shown whole, variables, how it runs (its sandbox profile) and warnings first.
    // Shown whole or not offered: a definition the dialog could only cut (or show other than it is)
    // cannot be approved from it.
    const { question, detail } = approvalDialog(d, this.inputs, sandbox, os.homedir());
    const shown = approvalText([detail], { max: 50_000, multiline: true, what: 'Its definition' });
    if (!confirmed && !shown.ok) return void (await vscode.window.showWarningMessage(text`${question} It cannot be approved here. ${shown.ok ? '' : shown.reason} Check its file.`, { modal: true }));
    const ok = confirmed ? 'Approve and Start' : await vscode.window.showWarningMessage(text`${question}`, { modal: true, detail: shown.ok ? shown.text : '' }, 'Approve and Start');
    if (ok !== 'Approve and Start') return;
    const approved = this.context.workspaceState.get<Record<string, string>>(APPROVED_KEY, {});
    await this.context.workspaceState.update(APPROVED_KEY, { ...approved, [d.id]: approvalHash(d, sandbox) });
    await this.reload();
  }

  /** Asks for the inputs a server needs; secrets go to SecretStorage, never to settings or logs. */
  private async provideInputs(n: McpNode): Promise<void> {
    const s = this.host.list().find((x) => x.definition.id === n.serverId);
    if (!s) return;
    for (const id of inputReferences(s.definition)) {
      const spec = this.inputs.find((i) => i.id === id);
      const value = await vscode.window.showInputBox({ title: text`${s.definition.name}: ${id}`, prompt: text`${spec?.description || `Value for \${input:${id}}`}`, password: spec?.password ?? true, value: spec?.default, ignoreFocusOut: true });
      if (value === undefined) return;
      await this.context.secrets.store(inputSecretKey(this.inputScope(s.definition), s.definition, id), value);
    }
    await this.reload();
  }

  /**
   * Whose inputs a definition's are: the person's own (user settings), or this workspace's (its
   * `.code-workspace` file, else its folders), so another workspace naming the same input id does
   * not receive the value.
   */
  private inputScope(d: McpServerDefinition): InputScope {
    if (d.source === 'settings' && !d.file) return { kind: 'user' };
    const identity = vscode.workspace.workspaceFile?.toString() ?? (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()).join('\n');
    return { kind: 'workspace', identity };
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.catalogEmitter.dispose();
    this.disposables.forEach((d) => d.dispose());
    this.host.dispose();
  }
}
