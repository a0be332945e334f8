/**
 * What a permission card shows of the request: on a waiting card, first, what allowing will do —
 * the diff of an edit, the command with its folder, environment and sandbox line, the content of a
 * write the agent's blocks do not show, the address or plan of a call the agent performs itself —
 * then the warnings that apply, one line each, right above the buttons. All of it is computed by
 * the extension from the declared intent (`PermissionView.display`), never from the agent's say-so,
 * and shown as text with hidden characters made visible: the card shows all of what an approval
 * lets through before the buttons that approve it.
 *
 * An answered card keeps the command lines and paths, without the content.
 */
import type { IntentDisplayView, PermissionView, ToolCallView, ToolContentView } from '../../src/acp/session/types';
import { openFullDiffButton, openWholeInputButton, previewCut } from './content';
import type { Ctx } from './context';
import { icon, shownFolder, type H } from './dom';
import { hasInvisible, visibleText } from './visibleText';

type DiffContent = Extract<ToolContentView, { type: 'diff' }>;

/**
 * The content items a waiting card shows first, as what will happen: its diffs. Every diff the agent
 * sends is an effect of the intent (`declareIntent` makes a write of each diffed file, and its hash
 * covers what the diff produces), and a held write's card carries our diff of the request itself.
 */
export function leadIndices(tc: ToolCallView): number[] {
  return tc.content.flatMap((c, i) => (c.type === 'diff' ? [i] : []));
}

/**
 * The waiting card's first section: what allowing lets through, in the intent's order, with the
 * blocks of `lead` (the diffs, built by `block`) where their file's write is. Null when there is
 * nothing to show (no display form and no diff).
 */
export function leadSection(ctx: Ctx, tc: ToolCallView, perm: PermissionView, lead: number[], block: (index: number) => HTMLElement): HTMLElement | null {
  const { h } = ctx;
  const placed = new Set<number>();
  const items = (perm.display ?? []).map((d) => {
    if (d.type === 'write' && d.source === 'diff') {
      const mine = lead.filter((i) => !placed.has(i) && samePath((tc.content[i] as DiffContent).path, d.path));
      mine.forEach((i) => placed.add(i));
      // The diff's head names the file; a path with hidden characters is said, as on every cover.
      if (mine.length) return [hiddenNote(h, d.path), ...mine.map(block)];
    }
    return [coverItem(ctx, d, true, perm.unrequested === true)];
  });
  const rest = lead.filter((i) => !placed.has(i)).map(block);
  const unrequested = perm.unrequested
    ? h(
        'div',
        { className: 'perm-question perm-unrequested', title: tc.kind === 'execute' ? 'The agent sent this command without asking first. Nothing runs until you answer.' : 'The agent sent this write without asking first. Nothing is written until you answer.' },
        icon(h, 'shield'),
        h('span', { className: 'unrequested-badge' }, 'Asked nothing before acting'),
        h('span', null, tc.kind === 'execute' ? ' Nothing runs until you answer.' : ' Nothing is written until you answer.'),
      )
    : null;
  if (!items.length && !rest.length && !unrequested) return null;
  return h('div', { className: 'perm-covers waiting', role: 'group', 'aria-label': 'What allowing lets through' }, unrequested, items, rest);
}

/**
 * An answered card's form of the intent: each command line and its folder, each path; no content. A
 * write of a diff the card shows is named by that diff's head.
 */
export function answeredCovers(ctx: Ctx, tc: ToolCallView, perm: PermissionView): HTMLElement | null {
  // Rejected or cancelled, the approval let nothing through: the title and the answer's line say it.
  const allowed = perm.state === 'selected' && !!perm.options.find((o) => o.optionId === perm.optionId)?.kind.startsWith('allow');
  if (!allowed) return null;
  const shown = (d: IntentDisplayView) => d.type === 'write' && d.source === 'diff' && tc.content.some((c) => c.type === 'diff' && samePath(c.path, d.path) && !hasInvisible(d.path, true));
  const items = (perm.display ?? []).filter((d) => !shown(d));
  if (!items.length) return null;
  return ctx.h('div', { className: 'perm-covers', role: 'group', 'aria-label': 'What the approval let through' }, items.map((d) => coverItem(ctx, d, false, perm.unrequested === true)));
}

/**
 * The warnings of a waiting card that apply to this request, one line each, above its buttons: a
 * change or request the card shows only in part (with the way to all of it), what the agent did not
 * declare, and why it can only be allowed once. What a broader choice would grant is said next to
 * that choice, under "Allow more…", not here.
 */
export function warnings(ctx: Ctx, tc: ToolCallView, perm: PermissionView): HTMLElement | null {
  const { h } = ctx;
  const cut = tc.content.findIndex((c, i) => c.type === 'diff' && previewCut(c, `${tc.toolCallId}:${i}`));
  const lines = [
    cut >= 0
      ? h('div', { className: 'perm-summary-line perm-cut' }, icon(h, 'warning'), h('span', { className: 'perm-summary-text' }, 'The card shows only part of this change. '), openFullDiffButton(ctx, { toolCallId: tc.toolCallId, index: cut }, 'Open the full diff'))
      : null,
    openWholeInputButton(ctx, tc.toolCallId, perm.display),
    ...(perm.undeclared ?? []).map((u) => oneLine(h, u, { className: 'perm-undeclared', icon: 'warning' })),
    perm.onceOnly ? oneLine(h, perm.onceOnly, { className: 'perm-once-only', icon: 'info' }) : null,
  ].filter((l): l is HTMLElement => l !== null);
  return lines.length ? h('div', { className: 'perm-warnings' }, lines) : null;
}

/**
 * A sentence of ours as one line: its first sentence, and the rest, when there is more, behind a
 * disclosure on that line (keyboard and screen reader included) and in its tooltip.
 */
export function oneLine(h: H, text: string, opts: { className: string; icon: string; lead?: string }): HTMLElement {
  const split = opts.lead === undefined ? firstSentence(text) : { lead: opts.lead, rest: text };
  const iconEl = icon(h, opts.icon);
  if (!split.rest) return h('div', { className: `perm-line ${opts.className}` }, iconEl, h('span', { className: 'perm-line-text' }, text));
  return h(
    'details',
    { className: `perm-line perm-line-more ${opts.className}`, title: text },
    h('summary', null, iconEl, h('span', { className: 'perm-line-text' }, split.lead), icon(h, 'chevron-down', { className: 'perm-line-chevron' })),
    h('div', { className: 'perm-line-rest' }, split.rest),
  );
}

/** `text`'s first sentence and the rest (empty when it is one sentence). */
export function firstSentence(text: string): { lead: string; rest: string } {
  const m = /^(.+?[.!?])\s+(?=[A-Z"“(])/s.exec(text);
  return m ? { lead: m[1], rest: text.slice(m[0].length) } : { lead: text, rest: '' };
}

/** One effect of the intent on the card. */
function coverItem(ctx: Ctx, d: IntentDisplayView, waiting: boolean, held: boolean): HTMLElement {
  const { h } = ctx;
  const hidden = (t: string, one = true) => hiddenNote(h, t, one);
  if (d.type === 'command') {
    const cwd = h('div', { className: 'command-cwd muted', title: `Working directory: ${d.cwd}` }, icon(h, 'folder'), h('span', null, visibleText(shownFolder(d.cwd, ctx.state()), true)));
    // A held command shows each variable with its value (secrets redacted by the extension); a declared one, the names.
    const env = d.env?.length
      ? h('div', { className: 'command-env' }, h('div', { className: 'muted' }, 'With these environment variables:'), d.env.map((line) => h('code', { className: 'command-env-line' }, visibleText(line, true))))
      : d.envNames.length
        ? h('div', { className: 'command-env muted' }, h('span', null, `Sets ${d.envNames.map((n) => visibleText(n, true)).join(', ')}`))
        : null;
    // The sandbox the hash covers, in one line of our words (its whole profile one click away), or that there is none.
    const sandbox = d.sandbox
      ? oneLine(h, visibleText(d.sandbox.text, false), { className: `command-sandbox ${d.sandbox.sandboxed ? 'sandboxed' : 'unsandboxed'}`, icon: d.sandbox.sandboxed ? 'shield' : 'warning', lead: visibleText(d.sandbox.sandboxed ? sandboxGist(d.sandbox.text) : d.sandbox.text.split(':')[0], true) })
      : null;
    if (d.unreadable) return h('div', { className: 'cover cover-command unreadable' }, h('div', { className: 'perm-undeclared' }, icon(h, 'error'), h('span', null, "No command: the client could not read the agent's command, so none will be let through.")), cwd);
    if (d.line === null) return h('div', { className: 'cover cover-command undeclared' }, h('div', { className: 'perm-undeclared' }, icon(h, 'warning'), h('span', null, 'Any one command in this folder: the agent did not show which.')), cwd, env, sandbox);
    return h(
      'div',
      { className: 'cover cover-command' },
      h('pre', { className: 'command', title: d.argv.length > 1 ? `Words: ${d.argv.map((a) => JSON.stringify(a)).join(' ')}` : undefined }, h('span', { className: 'prompt-sign' }, '$ '), visibleText(d.line, true)),
      hidden(d.line),
      cwd,
      env,
      sandbox,
    );
  }
  if (d.type === 'write') {
    const note =
      d.source === 'none'
        ? 'Any content: the agent did not show what it will write.'
        : d.source === 'diff'
          ? held
            ? 'With exactly the content the request carries, over the file’s current text (the diff).'
            : 'With the content of the agent’s diff.'
          : d.content
            ? 'With exactly this content:'
            : '';
    const content = waiting && d.content ? visibleText(d.content.text) : null;
    return h(
      'div',
      { className: 'cover cover-write' },
      h('div', { className: 'cover-path' }, icon(h, 'file'), h('code', null, visibleText(d.path, true))),
      hidden(d.path),
      note ? h('div', { className: `cover-note${d.source === 'none' ? ' perm-undeclared' : ' muted'}` }, h('span', null, note)) : null,
      content !== null ? h('pre', { className: 'cover-content' }, content) : null,
      content !== null && d.content ? hidden(d.content.text, false) : null,
      content !== null && d.content && d.content.totalChars > d.content.text.length
        ? h('div', { className: 'perm-undeclared' }, icon(h, 'warning'), h('span', null, `Only the first ${d.content.text.length} of ${d.content.totalChars} characters are shown; Open the whole request shows all of it.`))
        : null,
    );
  }
  return h(
    'div',
    { className: 'cover cover-tool' },
    h('div', { className: 'cover-tool-head muted' }, icon(h, 'tools'), h('span', null, `Performed by the agent itself: ${visibleText(d.title, true)}`)),
    // The agent wrote these: text, never a link (the person copies the address if they want it).
    d.url ? h('div', { className: 'cover-url' }, icon(h, 'globe'), h('code', null, visibleText(d.url, true))) : null,
    d.url ? hidden(d.url) : null,
    d.plan && waiting ? h('div', { className: 'cover-note muted' }, h('span', null, 'The plan it puts to you:')) : null,
    d.plan && waiting ? h('pre', { className: 'cover-content cover-plan' }, visibleText(d.plan)) : null,
  );
}

/** "This text holds invisible … characters" under a text that holds some, else null. */
function hiddenNote(h: H, text: string, oneLineText = true): HTMLElement | null {
  return hasInvisible(text, oneLineText) ? h('div', { className: 'perm-hidden-chars' }, icon(h, 'warning'), h('span', null, 'This text holds invisible or direction-changing characters, shown as ⟨U+…⟩.')) : null;
}

/** Does a diff's path (as the agent sent it, usually absolute) name the intent's file (workspace-relative, `/`)? */
export function samePath(diffPath: string, intentPath: string): boolean {
  const a = diffPath.replace(/\\/g, '/');
  return a === intentPath || a.endsWith(`/${intentPath}`);
}

/**
 * "Sandboxed when the editor runs it, no network, files that run held back" (or "…, network only to
 * a.example", "…, can create files that run") from the profile's words (ours).
 */
function sandboxGist(words: string): string {
  const net = /; (no network|network only to [^;]+);/.exec(words)?.[1];
  const held = /are held back at any depth/.test(words) ? 'files that run held back' : /cannot hold them back/.test(words) ? 'can create files that run' : undefined;
  return ['Sandboxed when the editor runs it', net, held].filter(Boolean).join(', ');
}
