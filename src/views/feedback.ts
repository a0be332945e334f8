/**
 * Feedback on a diff (issue 20): in a file an agent session changed (the Changes view's diff, or the
 * file itself), a comment on a line goes back to that session's agent as its next prompt: the
 * person's words, "About <file> lines a–b", and the quoted lines as a `resource` block (a text block
 * for an agent without embedded context). The side bar shows that session, so the person sees where
 * the feedback went and the agent at work on it; the comment thread then shows the agent's answer to
 * that turn, as plain text.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../activation/vscodeRegistry';
import path from 'node:path';
import { classifyCall } from '../common/commandArgs';
import { text } from '../common/untrustedText';
import type { ContextItem } from '../acp/promptContext';
import type { SessionController } from '../acp/sessionController';
import type { SessionState } from '../acp/session/types';

/** What feedback needs from the app. */
export interface FeedbackHost {
  /** The live session that last changed `file` (absolute), if any. */
  sessionFor(file: string): SessionController | undefined;
  /** Sends a prompt with attachments (as the prompt box does); queued while a turn runs. */
  send(key: string, text: string, context: ContextItem[]): Promise<'sent' | 'queued'>;
  /** Shows session `key` in the side bar, leaving the keyboard focus in the editor. */
  show(key: string): Promise<void>;
}

/** What one piece of feedback sent. */
export interface FeedbackSent {
  sessionKey: string;
  prompt: string;
  startLine: number;
  endLine: number;
}

/** Owns the comment controller. */
export class DiffFeedback implements vscode.Disposable {
  private readonly controller = vscode.comments.createCommentController('agentSwitchboard.feedback', 'Agent Switchboard: feedback to the agent');
  private readonly disposables: vscode.Disposable[] = [this.controller];

  constructor(private readonly host: FeedbackHost) {
    this.controller.options = { prompt: 'Feedback for the agent about these lines…', placeHolder: 'Sent to the agent that changed this file, as its next prompt' };
    // Only files a live session changed take feedback: it goes to that session's agent.
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (doc) => (doc.uri.scheme === 'file' && host.sessionFor(doc.uri.fsPath) ? [new vscode.Range(0, 0, Math.max(0, doc.lineCount - 1), 0)] : []),
    };
    this.disposables.push(
      registerCommand('agentSwitchboard.feedback.send', (...args: unknown[]) => this.fromCall(args)),
    );
  }

  /**
   * The comment's Send button (a `CommentReply` from the editor), or the API's `runCommand` with
   * `{ uri, startLine, endLine, text }` (1-based lines). Anything else (a link's JSON) is refused.
   */
  private async fromCall(args: unknown[]): Promise<FeedbackSent | undefined> {
    const call = classifyCall(args);
    try {
      if (call.origin === 'api') {
        const e = call.args[0] as { uri?: unknown; startLine?: unknown; endLine?: unknown; text?: unknown };
        if (typeof e?.uri !== 'string' || typeof e.text !== 'string' || typeof e.startLine !== 'number' || typeof e.endLine !== 'number') throw new Error('feedback.send takes { uri, startLine, endLine, text }.');
        const uri = vscode.Uri.parse(e.uri);
        const thread = this.controller.createCommentThread(uri, new vscode.Range(e.startLine - 1, 0, e.endLine - 1, 0), []);
        return await this.send(thread, e.text);
      }
      // A reply from the editor carries the thread object itself (with its methods): no link's JSON can.
      const reply = args[0] as { thread?: vscode.CommentThread; text?: unknown } | undefined;
      if (!reply?.thread || typeof reply.thread.dispose !== 'function' || typeof reply.text !== 'string') {
        void vscode.window.showWarningMessage(text`Agent Switchboard did not send that feedback: write it in a comment on a changed file.`);
        return undefined;
      }
      return await this.send(reply.thread, reply.text);
    } catch (err) {
      void vscode.window.showErrorMessage(text`The feedback was not sent: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  private async send(thread: vscode.CommentThread, said: string): Promise<FeedbackSent> {
    const file = thread.uri.fsPath;
    const session = this.host.sessionFor(file);
    if (!session) throw new Error('no live session changed this file');
    const body = said.trim();
    if (!body) throw new Error('the comment is empty');
    const doc = await vscode.workspace.openTextDocument(thread.uri);
    const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
    const startLine = range.start.line + 1;
    const endLine = Math.max(startLine, range.end.line + 1);
    const quoted = doc.getText(new vscode.Range(startLine - 1, 0, endLine - 1, doc.lineAt(Math.min(endLine - 1, doc.lineCount - 1)).text.length));
    const s = session.state;
    const rel = s.worktree ? path.relative(s.worktree.dir, file) : vscode.workspace.asRelativePath(file, false);
    const where = startLine === endLine ? `line ${startLine}` : `lines ${startLine}–${endLine}`;
    const prompt = `${body}\n\n(About ${rel.split(path.sep).join('/')}, ${where}.)`;
    const me: vscode.Comment = { author: { name: 'You' }, body: plain(body), mode: vscode.CommentMode.Preview };
    thread.comments = [...thread.comments, me];
    thread.label = text`Sent to ${s.agentName}: the side bar shows its session`;
    thread.canReply = true;
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
    const before = s.entries.length;
    await this.host.send(s.key, prompt, [{ kind: 'selection', path: file, startLine, endLine, text: quoted }]);
    // The answer comes in that session: the side bar goes there, whichever session it showed.
    await this.host.show(s.key).catch(() => undefined);
    this.answerWhenDone(thread, session, before);
    return { sessionKey: s.key, prompt, startLine, endLine };
  }

  /** When the turn that feedback started ends, its answer (plain text) joins the thread. */
  private answerWhenDone(thread: vscode.CommentThread, session: SessionController, from: number): void {
    let started = false;
    const sub = session.onDidChange(() => {
      const s = session.state;
      if (s.status === 'prompting') started = true;
      if (!started || s.status === 'prompting' || s.status === 'cancelling' || s.status === 'starting') return;
      sub.dispose();
      const answer = agentText(s, from) || (s.status === 'ready' ? '(The agent answered without text.)' : `(The turn ended: ${s.status}.)`);
      const reply: vscode.Comment = { author: { name: s.agentName }, body: plain(answer), mode: vscode.CommentMode.Preview };
      thread.comments = [...thread.comments, reply];
    });
    this.disposables.push(sub);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** Text as a comment body that renders as exactly that text (no links, markup or icons). */
function plain(t: string): vscode.MarkdownString {
  const m = new vscode.MarkdownString();
  m.appendText(t.length > 20_000 ? `${t.slice(0, 19_999)}…` : t);
  return m;
}

/** The agent's words in the thread since entry `from` (its message chunks, joined). */
function agentText(s: SessionState, from: number): string {
  return s.entries
    .slice(from)
    .filter((e) => e.kind === 'agent')
    .map((e) => ('text' in e ? e.text : ''))
    .join('\n\n')
    .trim();
}
