/**
 * Renders one item of tool-call content (ACP `ToolCallContent`): text, resources, images, diffs and
 * client-hosted terminals. Used by tool cards and by agent message attachments.
 */
import type { IntentDisplayView, TerminalView, ToolContentView } from '../../src/acp/session/types';
import type { Ctx } from './context';
import { diffPreview } from './diffPreview';
import { basename, breakable, icon, MAX_SHOWN_CHARS, notShownNote, shownFolder } from './dom';
import { hasInvisible, visibleText } from './visibleText';

/** Where a diff sits in the session: a tool call's content item (the full diff opens from there). */
export interface DiffPlace {
  toolCallId: string;
  index: number;
}

/**
 * @param cacheKey stable per place in the UI (e.g. `toolCallId:index`), used to cache diff previews.
 * @param place for a tool call's diff: where it is, so a preview cut short offers the full diff.
 */
export function renderContent(ctx: Ctx, c: ToolContentView, cacheKey: string, place?: DiffPlace): HTMLElement {
  const { h } = ctx;
  switch (c.type) {
    case 'text': {
      // A huge output is shown as plain text, cut: rendering megabytes of Markdown would stall the view.
      const cut = shownText(c);
      if (cut.rest !== undefined) return longTextBlock(ctx, cut.shown, cut.rest);
      const el = h('div', { className: 'content-text md' });
      el.innerHTML = ctx.md(c.text);
      return el;
    }
    case 'resource':
      return h(
        'div',
        { className: 'content-resource' },
        h('div', { className: 'resource-head' }, icon(h, 'file'), locationLink(ctx, uriToPath(c.uri), undefined, c.name || basename(c.uri))),
        c.text ? h('pre', { className: 'resource-text' }, clip(c.text, 4000)) : null,
      );
    case 'image':
      return h('div', { className: 'content-image muted' }, icon(h, 'file-media'), ` Image (${c.mimeType}, ${formatBytes(c.dataLength)})`);
    case 'diff':
      return renderDiff(ctx, c, cacheKey, place);
    case 'terminal':
      return renderTerminal(ctx, c.terminalId, c.unavailable);
  }
}

/**
 * What a card shows of a text item: all of it (`rest` undefined), or, past {@link MAX_SHOWN_CHARS}
 * characters (of the text or of its `totalChars`), its first characters and the count of the rest
 * (`notShownNote`).
 */
export function shownText(c: { text: string; totalChars?: number }): { shown: string; rest?: string } {
  const rest = notShownNote(c.text, c.totalChars);
  return rest === undefined ? { shown: c.text } : { shown: c.text.slice(0, MAX_SHOWN_CHARS), rest };
}

/**
 * A text longer than a card shows, as plain text: its first characters, and under them the count
 * of the rest, each a block of its own, so that a new count (a tool re-sending its growing output)
 * does not lay the 100,000 characters out again (a tool card changes the `.not-shown` block's text).
 */
function longTextBlock(ctx: Ctx, shown: string, rest: string): HTMLElement {
  return ctx.h('pre', { className: 'content-text raw' }, ctx.h('div', { className: 'shown-text' }, shown), ctx.h('div', { className: 'not-shown' }, rest));
}

/** A clickable `basename:line` that asks the extension to open the file. */
export function locationLink(ctx: Ctx, path: string, line?: number, label?: string): HTMLElement {
  const text = label ?? (line ? `${basename(path)}:${line}` : basename(path));
  return ctx.h(
    'button',
    {
      type: 'button',
      className: 'link location',
      title: line ? `${path}:${line}` : path,
      // The accessible name starts with the visible text (WCAG 2.5.3), then says where it leads.
      'aria-label': `${text}: open ${line ? `${path} at line ${line}` : path}`,
      onClick: () => ctx.post(line ? { type: 'openLocation', path, line } : { type: 'openLocation', path }),
    },
    text,
  );
}

/** "Open full diff": the whole diff in VS Code's diff editor, from the session's own copy of it. */
export function openFullDiffButton(ctx: Ctx, place: DiffPlace, label = 'Open full diff'): HTMLElement | null {
  const key = ctx.state()?.key;
  if (!key) return null;
  const { h } = ctx;
  return h(
    'button',
    { type: 'button', className: 'link open-full-diff', title: 'Open the whole change in the diff editor', onClick: () => ctx.post({ type: 'openToolDiff', key, toolCallId: place.toolCallId, index: place.index }) },
    icon(h, 'diff'),
    ` ${label}`,
  );
}

/**
 * "Open the whole request": the card's raw input in full, read-only, from the session's own copy of
 * it, for a card that shows only part of what it approves (a long content, address or plan). Null
 * when nothing of the card's intent is cut.
 */
export function openWholeInputButton(ctx: Ctx, toolCallId: string, display: readonly IntentDisplayView[] | undefined): HTMLElement | null {
  const key = ctx.state()?.key;
  const cut = (display ?? []).some((d) => (d.type === 'write' && d.content !== undefined && d.content.totalChars > d.content.text.length) || (d.type === 'tool' && d.cut === true));
  if (!key || !cut) return null;
  const { h } = ctx;
  return h(
    'div',
    { className: 'perm-summary-line perm-cut' },
    icon(h, 'warning'),
    h('span', { className: 'perm-summary-text' }, 'The card shows only part of this request. '),
    h('button', { type: 'button', className: 'link open-whole-input', title: 'Open everything the agent sent for this call, read-only', onClick: () => ctx.post({ type: 'openToolInput', key, toolCallId }) }, icon(h, 'json'), ' Open the whole request'),
  );
}

/** True when the card's preview of this diff leaves some of it out (capped, or too large to compute). */
export function previewCut(c: Extract<ToolContentView, { type: 'diff' }>, cacheKey: string): boolean {
  const p = diffPreview(cacheKey, c.oldText, c.newText);
  return p.tooLarge || p.moreChanges > 0;
}

function renderDiff(ctx: Ctx, c: Extract<ToolContentView, { type: 'diff' }>, cacheKey: string, place?: DiffPlace): HTMLElement {
  const { h } = ctx;
  const preview = diffPreview(cacheKey, c.oldText, c.newText);
  // Bidi controls and invisible characters would make a line read other than it is (Trojan Source):
  // shown as ⟨U+…⟩, and said.
  const hidden = hasInvisible(c.newText) || (c.oldText !== null && hasInvisible(c.oldText));
  const firstLine = preview.lines.find((l) => l.type === 'add' || l.type === 'del')?.line;
  const head = h(
    'div',
    { className: 'diff-head' },
    icon(h, c.oldText === null ? 'new-file' : 'diff'),
    // The file's name as text with hidden characters made visible: on a waiting card this head names what is written.
    locationLink(ctx, c.path, firstLine, visibleText(basename(c.path), true)),
    h('span', { className: 'diff-dir muted', title: c.path }, breakable(ctx.doc, visibleText(shownFolder(dirname(c.path), ctx.state()), true))),
    h('span', { className: 'diff-stats' },
      c.oldText === null ? h('span', { className: 'new-file-tag' }, 'new') : null,
      h('span', { className: 'stat-add' }, `+${c.added}`),
      h('span', { className: 'stat-del' }, `−${c.removed}`)),
  );
  let body: HTMLElement;
  if (preview.tooLarge) {
    body = h('div', { className: 'diff-note muted' }, 'Diff too large to preview here.');
  } else if (!preview.lines.length) {
    body = h('div', { className: 'diff-note muted' }, c.oldText === null ? 'An empty file.' : 'No change: the new text is the old text.');
  } else {
    body = h(
      'div',
      // Focusable: a region that scrolls must be reachable by keyboard (axe scrollable-region-focusable).
      { className: 'diff-lines', role: 'group', tabindex: '0', 'aria-label': `Changes in ${basename(c.path)}` },
      preview.lines.map((l) =>
        l.type === 'hunk'
          ? h('div', { className: 'dl hunk' }, l.text)
          : h(
              'div',
              { className: `dl ${l.type}` },
              h('span', { className: 'ln' }, l.line !== undefined ? String(l.line) : ''),
              h('span', { className: 'sign' }, l.type === 'add' ? '+' : l.type === 'del' ? '−' : ' '),
              h('span', { className: 'code' }, visibleText(l.text) || ' '),
            ),
      ),
    );
  }
  return h(
    'div',
    { className: 'content-diff' },
    head,
    hidden ? h('div', { className: 'perm-hidden-chars' }, icon(h, 'warning'), h('span', null, 'This change holds invisible or direction-changing characters, shown as ⟨U+…⟩.')) : null,
    body,
    preview.moreChanges > 0 || preview.tooLarge
      ? h('div', { className: 'diff-note muted' }, preview.moreChanges > 0 ? `… ${preview.moreChanges} more changed lines` : '', place ? openFullDiffButton(ctx, place) : null)
      : null,
  );
}

/**
 * A client-hosted terminal: command, output tail, exit status. Re-rendered alone when it changes.
 * `unavailable`: the session holds no terminal of that id (see `ToolContentView`), so a placeholder
 * says so instead of a spinner that would wait for ever.
 */
export function renderTerminal(ctx: Ctx, terminalId: string, unavailable?: boolean): HTMLElement {
  const { h } = ctx;
  const state = ctx.state();
  const t: TerminalView | undefined = state?.terminals[terminalId];
  const key = state?.key;
  // A terminal the agent ran itself has no terminal in this editor to show.
  const show = key && t?.owner !== 'agent'
    ? h(
        'button',
        { type: 'button', className: 'link show-terminal', onClick: () => ctx.post({ type: 'showTerminal', key, terminalId }) },
        icon(h, 'terminal'),
        ' Show in terminal',
      )
    : null;
  if (!t && unavailable) {
    return h('div', { className: 'content-terminal unavailable', 'data-terminal-id': terminalId },
      h('div', { className: 'term-head muted' }, icon(h, 'terminal'), ' No output here: this editor did not run this terminal, and the agent sent none of its output.'));
  }
  if (!t) {
    return h('div', { className: 'content-terminal', 'data-terminal-id': terminalId },
      h('div', { className: 'term-head muted' }, icon(h, 'loading', { spin: true }), ' Starting terminal…'));
  }
  const exit = t.exitStatus;
  const status = !exit
    ? h('span', { className: 'term-status running' }, icon(h, 'loading', { spin: true }), ' running')
    : exit.signal
      ? h('span', { className: 'term-status failed' }, `killed by ${exit.signal}`)
      : h('span', { className: `term-status ${exit.exitCode === 0 ? 'ok' : 'failed'}` }, `exit ${exit.exitCode ?? '?'}`);
  const pre = h('pre', { className: 'term-out', tabindex: '0', 'aria-label': 'Terminal output' },
    t.truncated ? h('span', { className: 'muted' }, '… earlier output dropped\n') : null,
    t.output || (exit ? '' : ' '));
  // Show the newest output: scroll the tail into view once the element is in the document.
  queueMicrotask(() => {
    pre.scrollTop = pre.scrollHeight;
  });
  return h(
    'div',
    { className: 'content-terminal', 'data-terminal-id': terminalId },
    h('div', { className: 'term-head' }, h('code', { className: 'term-cmd', title: t.cwd ? `in ${t.cwd}` : undefined }, '$ ', t.commandLine), status),
    t.owner === 'agent'
      ? h('div', { className: 'term-owner muted', title: 'The agent ran this command in its own process (and its own sandbox, if it has one); it did not go through this editor, its permission gate or its sandbox. Its output is what the agent reported.' }, icon(h, 'info'), 'Run by the agent itself, not through the editor')
      : null,
    t.output || t.truncated ? pre : null,
    blockedByTheSandbox(ctx, terminalId, t),
    show,
  );
}

/**
 * What the sandbox refused this command (issue 21; from the sandbox's own record, not from the
 * output), each host with "Allow and run again": a new intent the click approves.
 */
function blockedByTheSandbox(ctx: Ctx, terminalId: string, t: TerminalView): HTMLElement | null {
  const key = ctx.state()?.key;
  if (!key || !t.sandboxBlocked?.length) return null;
  const { h } = ctx;
  return h(
    'div',
    { className: 'sandbox-blocked' },
    h('div', { className: 'sandbox-blocked-head' }, icon(h, 'shield'), h('span', null, `Blocked by the sandbox: ${t.sandboxBlocked.map((x) => visibleText(x, true)).join(', ')}`)),
    t.sandboxBlocked.map((host) =>
      h(
        'vscode-button',
        { className: 'sandbox-allow-host', secondary: true, title: `Allow ${host} for this session's sandboxed commands and run this command again now`, onClick: () => ctx.post({ type: 'allowSandboxHost', key, terminalId, host }) },
        `Allow ${visibleText(host, true)} and run again`,
      ),
    ),
  );
}

function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i > 0 ? path.slice(0, i) : '';
}

function uriToPath(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '\n…' : text;
}

function formatBytes(n: number): string {
  // dataLength is the base64 length; the decoded size is about 3/4 of it.
  const bytes = Math.round((n * 3) / 4);
  return bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;
}
