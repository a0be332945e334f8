/**
 * Remote A2A agents in the editor: the person adds an agent by URL (its card is fetched, checked
 * and, when signed, verified), sees its skills, interfaces and security schemes, delegates a task,
 * answers the agent when it asks for input, cancels, opens artifacts, and opens the agent's trace.
 * The list of agents is kept in the profile (global state); tasks live as long as the window.
 * Every delegation is an audited decision of the person (the text itself is not stored, only its
 * hash and length).
 */
import { createHash, randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { createTreeView, registerCommand } from '../activation/vscodeRegistry';
import { registerGuardedCommand } from './guardedCommands';
import * as z from 'zod';
import { RemoteAgent, type DelegatedTask } from '../a2a/remote';
import { artifactText } from '../a2a/taskModel';
import type { AuditEntry } from '../policy/audit';
import type { Tracing } from '../trace/tracing';
import type { Span } from '@opentelemetry/api';
import { parseRemoteNode, RemoteAgentsTree, type RemoteEntry, type RemoteNode } from './remoteAgentsTree';
import { errorText, text } from '../common/untrustedText';

const LIST_KEY = 'agentSwitchboard.remoteAgents';
const SCHEME = 'agent-switchboard-a2a';
const Stored = z.array(z.object({ id: z.string().min(1), url: z.string().min(1), keyThumbprint: z.string().optional() }));

/** What the Remote Agents view needs from the rest of the extension. */
export interface RemoteAgentsDeps {
  tracing: Tracing;
  audit: (entry: AuditEntry) => void;
  /** Opens the trace panel of a store key. */
  showTrace: (traceKey: string, title: string) => void;
  log: (message: string) => void;
}

/** The Remote Agents view and its commands. */
export class RemoteAgentsCenter implements vscode.Disposable {
  private readonly entries: RemoteEntry[] = [];
  private readonly tree: RemoteAgentsTree;
  private readonly view: vscode.TreeView<RemoteNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private loaded = false;
  /** Open artifact documents are refreshed as their chunks arrive. */
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: RemoteAgentsDeps,
  ) {
    this.tree = new RemoteAgentsTree(() => this.entries);
    this.view = createTreeView('agentSwitchboard.remoteAgents', this.tree);
    // Commands that send, add, connect or remove take only a node of the view (or the API's
    // runCommand), never a link's JSON; showing a card, a trace or an artifact takes any node.
    const command = (id: string, run: (node: RemoteNode, ...rest: unknown[]) => unknown, guarded = true) =>
      guarded
        ? registerGuardedCommand(id, (node: unknown, ...rest: unknown[]) => run(parseRemoteNode(node), ...rest), { nodes: true })
        : registerCommand(id, (node: unknown, ...rest: unknown[]) => run(parseRemoteNode(node), ...rest));
    this.disposables.push(
      this.view,
      this.tree,
      // Agents are read again when the person first looks at the list, not with every window.
      this.view.onDidChangeVisibility((e) => e.visible && this.load()),
      registerGuardedCommand('agentSwitchboard.a2a.add', (url?: unknown) => this.add(typeof url === 'string' ? url : undefined)),
      command('agentSwitchboard.a2a.remove', (n) => this.remove(n.agentId)),
      command('agentSwitchboard.a2a.reconnect', (n) => this.connect(this.entry(n.agentId))),
      command('agentSwitchboard.a2a.delegate', (n, given) => this.delegate(n.agentId, typeof given === 'string' ? given : undefined)),
      command('agentSwitchboard.a2a.reply', (n, given) => (n.type === 'task' ? this.reply(n.agentId, n.localId, typeof given === 'string' ? given : undefined) : undefined)),
      command('agentSwitchboard.a2a.cancel', (n) => (n.type === 'task' ? this.cancel(n.agentId, n.localId) : undefined)),
      command('agentSwitchboard.a2a.openArtifact', (n) => (n.type === 'artifact' ? this.openArtifact(n) : undefined), false),
      command('agentSwitchboard.a2a.showCard', (n) => this.showCard(n.agentId), false),
      command('agentSwitchboard.a2a.showTrace', (n) => this.showTrace(n.agentId), false),
      // Artifacts and cards open read-only: nothing to save, nothing to lose when closed.
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, { onDidChange: this.docChanged.event, provideTextDocumentContent: (uri) => this.content(uri) }),
      this.docChanged,
    );
  }

  /** The agents with their tasks (the API's view). */
  list(): { id: string; url: string; name?: string; version?: string; signature?: string; error?: string; tasks: DelegatedTask[] }[] {
    return this.entries.map((e) => ({ id: e.id, url: e.url, name: e.agent?.name, version: e.agent?.checked.card.version, signature: e.agent?.checked.signature.state, error: e.error, tasks: e.agent?.tasks ?? [] }));
  }

  /** What an agent in a session may know of the remote agents (the `remote_agents` tool). */
  async summaries(): Promise<unknown> {
    await this.load();
    return this.entries
      .filter((e) => e.agent)
      .map((e) => {
        const c = e.agent!.checked;
        return { id: e.id, name: c.card.name, version: c.card.version, description: c.card.description, card: c.signature.state === 'verified' ? 'verified signature' : 'unverified', skills: (c.card.skills ?? []).map((k) => ({ id: k.id, name: k.name, description: k.description, examples: k.examples })) };
      });
  }

  /**
   * A delegation an agent asked for through the editor's MCP server: put to the person through the
   * session (`host`: a tool card and a permission request), then sent, with the task's span under
   * that tool call. A `taskId` continues a task that waits for input.
   * @returns the task as the remote agent left it.
   * @throws Error when the agent is unknown, the person refuses, or the remote agent fails.
   */
  async delegateForSession(
    session: {
      key: string;
      agentName: string;
      host: (call: { title: string; kind: 'other'; rawInput: unknown }, run: (parent: Span | undefined, decidedBy: string, signal: AbortSignal) => Promise<string>) => Promise<string>;
    },
    args: { agentId: string; message: string; taskId?: string },
  ): Promise<unknown> {
    await this.load();
    const entry = this.entry(args.agentId);
    // An agent learns only that an id is unknown or unusable, not the remote agent's address.
    if (!entry?.agent) throw new Error(`There is no connected remote agent "${args.agentId}"; call remote_agents for the list.`);
    const agent = entry.agent;
    if (args.taskId) {
      const own = agent.task(args.taskId);
      if (!own || own.requestedBy.kind !== 'agent' || own.requestedBy.sessionKey !== session.key) throw new Error(`This session has no task "${args.taskId}" with that agent.`);
    }
    const c = agent.checked;
    const preview = args.message.length > 160 ? `${args.message.slice(0, 159)}…` : args.message;
    // The title carries the message's hash, so the intent the person approves names this exact text.
    const title = `${args.taskId ? 'Reply to' : 'Delegate to'} remote agent ${agent.name} (${c.signature.state === 'verified' ? 'signed card' : 'unverified card'}): "${preview}" [sha256 ${sha256(args.message).slice(0, 16)}]`;
    let result: unknown;
    await session.host({ title, kind: 'other', rawInput: { remoteAgent: agent.name, card: c.cardUrl, interface: c.chosen.url, message: args.message, ...(args.taskId ? { taskId: args.taskId } : {}) } }, async (parent, decidedBy, signal) => {
      const running = args.taskId
        ? agent.reply(args.taskId, args.message)
        : agent.delegate(args.message, { traceKey: session.key, parent }, { kind: 'agent', sessionKey: session.key, agentName: session.agentName });
      // The agent withdrew its request or the session ended: the remote task is cancelled too.
      const localId = args.taskId ?? agent.tasks.at(-1)?.localId;
      const onAbort = () => localId && void agent.cancel(localId).catch(() => undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      const entry = await running.finally(() => signal.removeEventListener('abort', onAbort));
      this.deps.audit({
        sessionId: session.key,
        agentId: `a2a:${c.cardUrl}`,
        event: 'effect',
        decision: args.taskId ? 'reply' : 'delegate',
        decidedBy,
        detail: { requestedBy: session.agentName, agent: agent.name, version: c.card.version, signature: c.signature.state, textSha256: sha256(args.message), textLength: args.message.length, task: entry.task.taskId, state: entry.task.state },
      });
      result = taskResult(entry);
      if (entry.error) throw new Error(entry.error);
      return JSON.stringify(result, null, 2);
    });
    return result;
  }

  /** The trace key of an agent's delegations from the panel. */
  static traceKey(agentId: string): string {
    return `remote:${agentId}`;
  }

  /** Reads the stored list once and connects to every agent in it. */
  async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    const stored = Stored.safeParse(this.context.globalState.get(LIST_KEY) ?? []);
    if (!stored.success) this.deps.log('The stored list of remote agents could not be read; it starts empty.');
    for (const s of stored.success ? stored.data : []) if (!this.entry(s.id)) this.entries.push({ id: s.id, url: s.url, keyThumbprint: s.keyThumbprint });
    this.tree.refresh();
    await Promise.all(this.entries.map((e) => this.connect(e)));
  }

  /**
   * Adds the agent at `url` (asked for when absent) and reads its card.
   * @returns the new agent's id, or undefined when the person gave no URL.
   */
  async add(url?: string): Promise<string | undefined> {
    await this.load();
    const input = url ?? (await vscode.window.showInputBox({ title: 'Add a remote agent (A2A)', prompt: "The agent's base URL (its card is read from /.well-known/agent-card.json) or the URL of its card", placeHolder: 'https://agent.example', ignoreFocusOut: true }));
    if (!input?.trim()) return undefined;
    const existing = this.entries.find((e) => e.url === input.trim());
    if (existing) return (await this.connect(existing), existing.id);
    const entry: RemoteEntry = { id: randomUUID().slice(0, 8), url: input.trim() };
    this.entries.push(entry);
    this.save();
    await this.connect(entry);
    if (entry.error) void vscode.window.showWarningMessage(text`The remote agent at ${entry.url} could not be added: ${entry.error}`);
    return entry.id;
  }

  private async connect(entry: RemoteEntry | undefined): Promise<void> {
    if (!entry || entry.connecting) return;
    entry.connecting = true;
    entry.error = undefined;
    this.tree.refresh();
    try {
      // The key that signed the card when the person added the agent is the one trusted after.
      const agent = await RemoteAgent.connect(entry.id, entry.url, { tracing: this.deps.tracing }, { expectedThumbprint: entry.keyThumbprint });
      // Only a working new connection replaces the old one (and its tasks).
      entry.agent?.dispose();
      entry.agent = agent;
      const sig = agent.checked.signature;
      if (!entry.keyThumbprint && sig.state === 'verified') {
        entry.keyThumbprint = sig.thumbprint;
        this.save();
      }
      agent.onDidChange((task) => {
        this.tree.refresh();
        if (task) this.refreshOpenArtifacts(entry.id, task.localId);
      });
    } catch (err) {
      entry.error = err instanceof Error ? err.message : String(err);
      this.deps.log(`Remote agent ${entry.url}: ${entry.error}`);
    } finally {
      entry.connecting = false;
      this.tree.refresh();
    }
  }

  private refreshOpenArtifacts(agentId: string, localId: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== SCHEME) continue;
      const q = new URLSearchParams(doc.uri.query);
      if (q.get('agent') === agentId && q.get('task') === localId) this.docChanged.fire(doc.uri);
    }
  }

  private remove(agentId: string): void {
    const i = this.entries.findIndex((e) => e.id === agentId);
    if (i < 0) return;
    this.entries[i].agent?.dispose();
    this.entries.splice(i, 1);
    this.tree.forget(agentId);
    this.save();
    this.tree.refresh();
  }

  /** Delegates a task (the text is asked for when absent). @returns the task, or undefined. */
  private async delegate(agentId: string, given?: string): Promise<DelegatedTask | undefined> {
    const agent = this.agent(agentId);
    const said = given ?? (await vscode.window.showInputBox({ title: text`Delegate a task to ${agent.name}`, prompt: 'What should the remote agent do? It receives exactly this text.', ignoreFocusOut: true }));
    if (!said?.trim()) return undefined;
    const running = agent.delegate(said, { traceKey: RemoteAgentsCenter.traceKey(agentId) });
    this.deps.audit({
      sessionId: RemoteAgentsCenter.traceKey(agentId),
      agentId: `a2a:${agent.checked.cardUrl}`,
      event: 'decision',
      decision: 'delegate',
      decidedBy: 'person',
      detail: { agent: agent.name, version: agent.checked.card.version, signature: agent.checked.signature.state, interface: agent.checked.chosen.url, textSha256: sha256(said), textLength: said.length },
    });
    return running;
  }

  private async reply(agentId: string, localId: string, given?: string): Promise<DelegatedTask | undefined> {
    const agent = this.agent(agentId);
    const asked = agent.task(localId)?.task.statusText;
    const said = given ?? (await vscode.window.showInputBox({ title: text`Reply to ${agent.name}`, prompt: text`${asked ? `The agent asks: ${asked}` : 'Your answer'}`, ignoreFocusOut: true }));
    if (!said?.trim()) return undefined;
    try {
      return await agent.reply(localId, said);
    } catch (err) {
      void vscode.window.showWarningMessage(text`${errorText(err)}`);
      return undefined;
    }
  }

  private async cancel(agentId: string, localId: string): Promise<DelegatedTask | undefined> {
    try {
      return await this.agent(agentId).cancel(localId);
    } catch (err) {
      void vscode.window.showWarningMessage(text`${errorText(err)}`);
      return undefined;
    }
  }

  private async openArtifact(n: Extract<RemoteNode, { type: 'artifact' }>): Promise<void> {
    const a = this.agent(n.agentId).task(n.localId)?.task.artifacts.find((x) => x.artifactId === n.artifactId);
    if (!a) return;
    const name = a.name.replace(/[\\/]/g, '_') || 'artifact';
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}`, query: new URLSearchParams({ agent: n.agentId, task: n.localId, artifact: n.artifactId }).toString() });
    const doc = await vscode.workspace.openTextDocument(uri);
    const language = /\.md$/i.test(a.name) ? 'markdown' : /\.json$/i.test(a.name) || a.parts.every((p) => p.type === 'data') ? 'json' : undefined;
    await vscode.window.showTextDocument(language ? await vscode.languages.setTextDocumentLanguage(doc, language) : doc, { preview: true });
  }

  private async showCard(agentId: string): Promise<void> {
    const agent = this.agent(agentId);
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${agent.name.replace(/[\\/]/g, '_')} agent-card.json`, query: new URLSearchParams({ agent: agentId, card: '1' }).toString() });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }

  /** The text of a read-only artifact or card document. */
  private content(uri: vscode.Uri): string {
    const q = new URLSearchParams(uri.query);
    const agent = this.entry(q.get('agent') ?? '')?.agent;
    if (!agent) return 'This remote agent is no longer connected.';
    if (q.get('card')) return JSON.stringify(agent.checked.raw, null, 2);
    const a = agent.task(q.get('task') ?? '')?.task.artifacts.find((x) => x.artifactId === q.get('artifact'));
    return a ? artifactText(a) : 'This artifact is no longer known (tasks live as long as the window).';
  }

  private showTrace(agentId: string): void {
    const agent = this.agent(agentId);
    this.deps.showTrace(RemoteAgentsCenter.traceKey(agentId), `remote agent ${agent.name}`);
  }

  private agent(agentId: string): RemoteAgent {
    const e = this.entry(agentId);
    if (!e?.agent) throw new Error(e ? `The remote agent at ${e.url} is not connected${e.error ? `: ${e.error}` : ''}. Use Reconnect.` : 'That remote agent is not in the list.');
    return e.agent;
  }

  private entry(id: string): RemoteEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  private save(): void {
    void this.context.globalState.update(LIST_KEY, this.entries.map((e) => ({ id: e.id, url: e.url, ...(e.keyThumbprint ? { keyThumbprint: e.keyThumbprint } : {}) })));
  }

  dispose(): void {
    for (const e of this.entries) e.agent?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A task as an agent reads it back: ids, state, the agent's last words, artifacts (text, capped). */
function taskResult(entry: DelegatedTask): unknown {
  const t = entry.task;
  const cap = (s: string) => (s.length > 64 * 1024 ? `${s.slice(0, 64 * 1024)}… [cut]` : s);
  return { taskId: entry.localId, remoteTaskId: t.taskId, state: t.state, ...(t.statusText ? { status: t.statusText } : {}), ...(entry.error ? { error: entry.error } : {}), artifacts: t.artifacts.map((a) => ({ name: a.name, text: cap(artifactText(a)) })) };
}
