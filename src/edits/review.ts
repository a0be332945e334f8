/**
 * The review of agents' changes: per session, per turn, per file and per hunk, whoever performed
 * them (we, through `fs/write_text_file`, or the agent writing to disk itself). Each file change
 * keeps the exact base it replaced, so Undo restores it; each turn keeps its own base, so undoing
 * turn 2 leaves an accepted turn 1 alone.
 *
 * Pure: no `vscode`, no I/O. The editor adapter (views/review.ts) reads current texts, applies the
 * planned texts with a version check and writes base bytes back.
 */
import { Emitter, type Event } from '../common/lifecycle';
import { applyHunks, carryHunk, hunksOf, invertHunk, lineMap, mergeOnto, type Hunk } from './model';
import { isWithin } from '../fs/containment';

/** What the person decided about a hunk. */
export type HunkDecision = 'pending' | 'kept' | 'undone';

/**
 * How a change reached the file: `client` = we applied it for `fs/write_text_file` after the gate;
 * `agent` = the agent wrote to disk itself and we saw it against our baseline snapshot.
 */
export type ChangeVia = 'client' | 'agent';

/** Who changed a file after the agent, as far as the editor can tell. */
export type LaterAuthor = 'person' | 'formatter' | 'other';

/**
 * The text of a file before the change: null when the file did not exist. Every base comes from
 * what we read ourselves (the disk, or the document we wrote through), never from what an agent
 * says the file held.
 */
export interface Base {
  text: string | null;
  /** The exact bytes on disk, when the base came from disk (Undo writes them back verbatim). */
  bytes?: Uint8Array;
  /**
   * Set when we cannot be sure the file held `text` before the change (one sentence: why), e.g. the
   * file changed while or just before we read it. `text` is then only what we happened to read, for
   * display; Undo and Restore Checkpoint refuse to write it.
   */
  uncertain?: string;
  /**
   * For a file our write created (`text` null): the first folder that write made for it. An Undo
   * or Restore that deletes the file removes the folders it leaves empty, up to this one.
   */
  createdDir?: string;
}

/** The message of an undo refused because the base is not known for certain. */
export function uncertainMessage(reason: string): string {
  return `what the file held before the agent's change is not known for certain (${reason}); nothing was written. Open Diff shows what was read; restore it by hand if it is right.`;
}

/** One file changed in one turn of one session. */
export interface FileChange {
  /** `<sessionKey>#<turn>#<path>`. */
  id: string;
  sessionKey: string;
  /** 1-based turn number within the session. */
  turn: number;
  /** Absolute file system path. */
  path: string;
  via: ChangeVia;
  toolCallIds: string[];
  base: Base;
  /** The text after the agent's last change in this turn; null when the agent deleted the file. */
  after: string | null;
  /** Hunks from base to after (3 lines of context). */
  hunks: Hunk[];
  decisions: HunkDecision[];
  /** The decision on a change without hunks (a no-op or an empty created file), or on the whole file. */
  fileDecision: HunkDecision;
  /** Changes by others after the agent's, newest last. */
  later: { by: LaterAuthor; at: number }[];
  /** When the change was first and last recorded (ms since epoch). */
  at: number;
  updatedAt: number;
  /**
   * The file was moved in this turn: `from` on the change that created it at its new path, `to` on
   * the change that removed it from its old one; `id` is the other change (see {@link ReviewModel.moveOf}).
   */
  moved?: { from?: string; to?: string; id: string };
}

/** One turn's changes, for the Changes view. */
export interface TurnChanges {
  sessionKey: string;
  turn: number;
  prompt: string;
  files: FileChange[];
}

/**
 * What the adapter must do to the file: write `text` (through the document, version-checked against
 * `expected`), restore the base bytes, delete it, or nothing; or refuse with a reason.
 */
export type UndoPlan =
  | { action: 'text'; text: string; hunks: number[] }
  | { action: 'restoreBase'; bytes?: Uint8Array; text: string; hunks: number[] }
  | { action: 'delete'; hunks: number[] }
  | { action: 'none' }
  | { action: 'conflict'; message: string };

/** A change's decisions at one moment (see {@link ReviewModel.decisionsOf}). */
export interface DecisionsSnapshot {
  decisions: HunkDecision[];
  fileDecision: HunkDecision;
}

/** All reviewable changes of this window. */
export class ReviewModel {
  private readonly changes = new Map<string, FileChange>();
  /** The changes of one file in one turn, oldest first: `<session>#<turn>#<path>` → ids. */
  private readonly segments = new Map<string, string[]>();
  private readonly prompts = new Map<string, string>();
  /** The turn each of the person's prompts started: `<session>#<entry id>` → turn. */
  private readonly promptEntries = new Map<string, number>();
  private readonly emitter = new Emitter<void>();
  /** Fires after any change to the model. */
  readonly onDidChange: Event<void> = this.emitter.event;

  /**
   * Notes the prompt of a turn (the label of its node) and, with `entryId`, the thread entry of
   * that prompt: the thread's message then names its turn exactly ({@link turnOfEntry}).
   */
  turnStarted(sessionKey: string, turn: number, prompt: string, entryId?: string): void {
    this.prompts.set(`${sessionKey}#${turn}`, prompt);
    if (entryId !== undefined) this.promptEntries.set(`${sessionKey}#${entryId}`, turn);
  }

  /** The turn the person's prompt `entryId` started in that session, or undefined when none was noted. */
  turnOfEntry(sessionKey: string, entryId: string): number | undefined {
    return this.promptEntries.get(`${sessionKey}#${entryId}`);
  }

  /**
   * Records that the agent changed `path` in `turn` from `base` to `after`. A further change in the
   * same turn whose base is exactly what the agent left (nobody else touched the file in between)
   * extends that change: the first base stays, hunks are recomputed and undecided again. A change on
   * a base someone else altered starts a new change of its own, so undoing it cannot take their
   * edits with it.
   * @returns the file change, or undefined when nothing changed.
   */
  record(sessionKey: string, turn: number, path: string, via: ChangeVia, base: Base, after: string | null, toolCallId?: string, at = Date.now()): FileChange | undefined {
    const stem = `${sessionKey}#${turn}#${path}`;
    const latest = this.latest(sessionKey, turn, path);
    let c: FileChange;
    if (latest && latest.base.text === base.text && latest.after === after) {
      // The same change seen twice (the file watcher, then our own report of the write): one change.
      if (via === 'client' && latest.via !== 'client') {
        latest.via = 'client';
        this.emitter.fire();
      }
      if (toolCallId && !latest.toolCallIds.includes(toolCallId)) latest.toolCallIds.push(toolCallId);
      // The watcher saw the file first; our report knows which folder the write made.
      if (base.createdDir && latest.base.text === null && !latest.base.createdDir) latest.base.createdDir = base.createdDir;
      return latest;
    }
    if (latest && base.text === this.expectedText(latest)) {
      if (after === this.expectedText(latest)) return latest;
      c = latest;
    } else {
      // A no-op is no change, unless we only know that the agent changed the file and not from
      // what (it was faster than its announcement): then the change is listed, with nothing to undo.
      if (base.text === after && base.uncertain === undefined) return undefined;
      const n = (this.segments.get(stem)?.length ?? 0) + 1;
      c = { id: n === 1 ? stem : `${stem}#${n}`, sessionKey, turn, path, via, toolCallIds: [], base, after, hunks: [], decisions: [], fileDecision: 'pending', later: [], at, updatedAt: at };
      this.segments.set(stem, [...(this.segments.get(stem) ?? []), c.id]);
    }
    // Once we applied a change ourselves, the record says so even if the agent also wrote.
    if (via === 'client') c.via = 'client';
    c.after = after;
    c.updatedAt = at;
    if (toolCallId && !c.toolCallIds.includes(toolCallId)) c.toolCallIds.push(toolCallId);
    c.hunks = hunksOf(c.base.text ?? '', after ?? '');
    c.decisions = c.hunks.map(() => 'pending');
    c.fileDecision = 'pending';
    this.changes.set(c.id, c);
    this.pairMove(c);
    this.emitter.fire();
    return c;
  }

  /**
   * The two changes of a file moved in one turn: the one that removed it from its old path and the
   * one that created it at its new path, while they still are that; undefined for any other change.
   */
  moveOf(c: FileChange): { from: FileChange; to: FileChange } | undefined {
    const other = c.moved && this.changes.get(c.moved.id);
    if (!other) return undefined;
    const [from, to] = c.moved?.from !== undefined ? [other, c] : [c, other];
    return from.after === null && from.base.text !== null && to.base.text === null && to.after !== null ? { from, to } : undefined;
  }

  /**
   * One tool call that removed a file and created one with mostly the same lines moved it (a
   * `move` call, or an edit that renames): the two changes are linked, so the review can show the
   * file's text before the turn, from its old path, against the new one. Undo is unchanged: each
   * path is restored (or removed) on its own.
   */
  private pairMove(c: FileChange): void {
    if (c.moved) return;
    const created = c.base.text === null && c.after !== null;
    if (!created && !(c.after === null && c.base.text !== null)) return;
    const others = [...this.changes.values()].filter(
      (o) => o !== c && !o.moved && o.sessionKey === c.sessionKey && o.turn === c.turn && o.toolCallIds.some((t) => c.toolCallIds.includes(t)) && (created ? o.after === null && o.base.text !== null : o.base.text === null && o.after !== null),
    );
    if (others.length !== 1) return;
    const [from, to] = created ? [others[0], c] : [c, others[0]];
    if (!mostlyIn(from.base.text ?? '', to.after ?? '')) return;
    from.moved = { to: to.path, id: to.id };
    to.moved = { from: from.path, id: from.id };
  }

  /** The newest change of `path` in that turn of that session. */
  latest(sessionKey: string, turn: number, path: string): FileChange | undefined {
    const id = this.segments.get(`${sessionKey}#${turn}#${path}`)?.at(-1);
    return id === undefined ? undefined : this.changes.get(id);
  }

  /** Notes that someone other than the agent changed a file the agent changed in an open review. */
  noteLater(path: string, by: LaterAuthor, at = Date.now()): void {
    const latest = this.latestFor(path);
    if (!latest || latest.fileDecision !== 'pending') return;
    if (latest.later.at(-1)?.by === by) return;
    latest.later.push({ by, at });
    this.emitter.fire();
  }

  get(id: string): FileChange | undefined {
    return this.changes.get(id);
  }

  /** The newest change to `path` (highest turn of the newest session to touch it). */
  latestFor(path: string): FileChange | undefined {
    return [...this.changes.values()].filter((c) => c.path === path).sort((a, b) => a.updatedAt - b.updatedAt).at(-1);
  }

  /** Turns with changes, oldest first; only `sessionKey` when given. */
  turns(sessionKey?: string): TurnChanges[] {
    const byTurn = new Map<string, TurnChanges>();
    for (const c of this.changes.values()) {
      if (sessionKey && c.sessionKey !== sessionKey) continue;
      const key = `${c.sessionKey}#${c.turn}`;
      let t = byTurn.get(key);
      if (!t) byTurn.set(key, (t = { sessionKey: c.sessionKey, turn: c.turn, prompt: this.prompts.get(key) ?? '', files: [] }));
      t.files.push(c);
    }
    return [...byTurn.values()].sort((a, b) => (a.sessionKey === b.sessionKey ? a.turn - b.turn : a.files[0].at - b.files[0].at));
  }

  /** Changes still waiting for a decision. */
  pendingCount(): number {
    return [...this.changes.values()].filter((c) => c.fileDecision === 'pending').length;
  }

  /** Keeps one hunk (or, with `hunk` undefined, the whole file, including a change without hunks). */
  keep(id: string, hunk?: number): void {
    const c = this.must(id);
    if (hunk === undefined) {
      c.decisions = c.decisions.map((d) => (d === 'pending' ? 'kept' : d));
      // A change without hunks (an empty created file) is approved as a whole.
      if (!c.hunks.length) c.fileDecision = 'kept';
    } else if (c.decisions[hunk] === 'pending') c.decisions[hunk] = 'kept';
    settle(c);
    this.emitter.fire();
  }

  /**
   * Plans undoing one hunk (or every hunk not yet undone, with `hunk` undefined) given the file's
   * current text (null when it does not exist). When the file is still exactly as the agent left
   * it (after earlier undos), the plan is computed from the base; otherwise the hunk is reverted on
   * the current text where its lines are still intact, and refused where someone changed them.
   */
  planUndo(id: string, current: string | null, hunk?: number): UndoPlan {
    const c = this.must(id);
    if (hunk !== undefined && (hunk < 0 || hunk >= c.hunks.length)) throw new Error(`Change ${id} has no hunk ${hunk}.`);
    // Every plan below is made from the base (restored, or hunks inverted onto it): never from a
    // base we are not sure of.
    if (c.base.uncertain !== undefined) return { action: 'conflict', message: uncertainMessage(c.base.uncertain) };
    // Undo of a whole file reverts the hunks still to review, leaving kept ones; when none is left
    // to review, it reverts the kept ones too (the person changed their mind about the file).
    const pending = c.hunks.map((_, i) => i).filter((i) => c.decisions[i] === 'pending');
    const targets = hunk !== undefined ? (c.decisions[hunk] === 'undone' ? [] : [hunk]) : pending.length ? pending : c.hunks.map((_, i) => i).filter((i) => c.decisions[i] !== 'undone');
    const undone = new Set(c.hunks.map((_, i) => i).filter((i) => c.decisions[i] === 'undone' || targets.includes(i)));
    const all = undone.size === c.hunks.length;
    if (!targets.length && !(all && hunk === undefined && c.fileDecision !== 'undone')) return { action: 'none' };
    const expected = this.expectedText(c);
    if (current === expected) {
      if (all) return c.base.text === null ? { action: 'delete', hunks: targets } : { action: 'restoreBase', bytes: c.base.bytes, text: c.base.text, hunks: targets };
      return { action: 'text', text: textWithout(c, undone), hunks: targets };
    }
    if (current === null) return { action: 'conflict', message: 'the file no longer exists; nothing to undo.' };
    if (expected === null) return { action: 'conflict', message: 'the file was deleted by the agent and has been recreated since; it was left alone.' };
    // Someone changed the file since: revert each hunk where its lines moved to in their text, and
    // only if none of its lines (context included) was touched; last first.
    const map = lineMap(expected, current);
    let text = current;
    for (const i of [...targets].sort((a, b) => b - a)) {
      const next = carryHunk(text, invertHunk(c.hunks[i]), this.positionInExpected(c, i), map, false);
      if (next === false) {
        const h = c.hunks[i];
        const lines = `lines ${h.newStart}–${h.newStart + Math.max(h.newLines, 1) - 1}`;
        const by = this.brokenBy(c, i);
        if (by) return { action: 'conflict', message: `${lines} were changed since by ${by.sessionKey !== c.sessionKey ? "another session's agent" : by.turn === c.turn ? "the agent's next change in this turn" : `the agent's turn ${by.turn}`}; undo that change first, or these lines by hand (Open Diff shows the text before the turn).` };
        return { action: 'conflict', message: `${lines} changed after the agent wrote them; undo them by hand (Open Diff shows the text before the turn).` };
      }
      text = next;
    }
    return { action: 'text', text, hunks: targets };
  }

  /**
   * The later agent change of the same file (any session, not undone) that changed a line of hunk
   * `i` of `c`: Undo refuses the hunk then, and the way is to undo that change first, not by hand.
   */
  brokenBy(c: FileChange, i: number): FileChange | undefined {
    const from = this.expectedText(c);
    if (from === null) return undefined;
    const inverse = invertHunk(c.hunks[i]);
    const at = this.positionInExpected(c, i);
    const carries = (to: string | null) => to !== null && carryHunk(to, inverse, at, lineMap(from, to), from === to) !== false;
    const later = [...this.changes.values()].filter((o) => o.path === c.path && o !== c && o.at > c.at && o.fileDecision !== 'undone').sort((a, b) => a.at - b.at);
    return later.find((o) => carries(o.base.text) && !carries(this.expectedText(o)));
  }

  /** 0-based line where hunk `i`'s new side starts in {@link expectedText} (earlier undone hunks shift it). */
  private positionInExpected(c: FileChange, i: number): number {
    let pos = c.hunks[i].newLines === 0 ? c.hunks[i].newStart : c.hunks[i].newStart - 1;
    for (let j = 0; j < i; j++) if (c.decisions[j] === 'undone') pos += c.hunks[j].oldLines - c.hunks[j].newLines;
    return pos;
  }

  /**
   * Records that an undo was performed: of the plan's hunks (`plan.hunks` of {@link planUndo}), one
   * hunk, or — with nothing given — the whole change.
   */
  undone(id: string, hunks?: number | number[]): void {
    const c = this.must(id);
    if (hunks === undefined) {
      c.decisions = c.decisions.map(() => 'undone');
      c.fileDecision = 'undone';
    } else for (const i of typeof hunks === 'number' ? [hunks] : hunks) c.decisions[i] = 'undone';
    // A change without hunks (an empty created file) is undone as a whole.
    if (!c.hunks.length) c.fileDecision = 'undone';
    settle(c);
    this.emitter.fire();
  }

  /** The decisions on a change as they are now, to put back when an Undo is taken back ({@link reinstate}). */
  decisionsOf(id: string): DecisionsSnapshot {
    const c = this.must(id);
    return { decisions: [...c.decisions], fileDecision: c.fileDecision };
  }

  /**
   * Takes an Undo back: the change's decisions become `saved` again (taken with {@link decisionsOf}
   * before the undo), so the file the adapter put back is the change's expected text and its hunks
   * are to review as they were. Used when an Undo deleted a file the agent created and the person
   * restores it.
   */
  reinstate(id: string, saved: DecisionsSnapshot): void {
    const c = this.must(id);
    if (saved.decisions.length !== c.decisions.length) throw new Error(`Change ${id} has ${c.decisions.length} hunks, not ${saved.decisions.length}.`);
    c.decisions = [...saved.decisions];
    c.fileDecision = saved.fileDecision;
    settle(c);
    this.emitter.fire();
  }

  /**
   * What a checkpoint restore of `turn` must do: for every file `sessionKey` changed in that turn or
   * later, its base from the earliest such change, and the text the agent last left there (to check
   * nobody changed it since). `continuous` is false when someone else changed the file between two
   * of those changes: restoring the old base would take their edits too, so it must be skipped.
   * An entry whose base is uncertain (`base.uncertain`) must be skipped as well. A file whose
   * changes are all undone already (by Undo or an earlier restore) is as it was: not listed.
   * `undoneBetween` tells that it is not continuous only because the person undid (part of) an
   * earlier change since and not the later one made on it, rather than someone writing between.
   */
  checkpoint(sessionKey: string, turn: number): { path: string; base: Base; expected: string | null; ids: string[]; continuous: boolean; undoneBetween: boolean }[] {
    const byPath = new Map<string, FileChange[]>();
    for (const c of this.changes.values()) {
      if (c.sessionKey !== sessionKey || c.turn < turn) continue;
      byPath.set(c.path, [...(byPath.get(c.path) ?? []), c]);
    }
    return [...byPath.entries()].filter(([, list]) => !list.every((c) => c.fileDecision === 'undone')).map(([path, list]) => {
      list.sort((a, b) => a.turn - b.turn || a.at - b.at);
      const continuous = list.every((c, i) => i === 0 || c.base.text === this.expectedText(list[i - 1]));
      const undoneBetween = !continuous && list.every((c, i) => i === 0 || c.base.text === this.expectedText(list[i - 1]) || c.base.text === list[i - 1].after);
      return { path, base: list[0].base, expected: this.expectedText(list.at(-1)!), ids: list.map((c) => c.id), continuous, undoneBetween };
    });
  }

  /** Marks the changes of a restored checkpoint as undone. */
  restored(ids: string[]): void {
    for (const id of ids) {
      const c = this.changes.get(id);
      if (!c) continue;
      c.decisions = c.decisions.map(() => 'undone');
      c.fileDecision = 'undone';
    }
    this.emitter.fire();
  }

  /** Forgets a session's changes (it was closed and the person cleared them). */
  clear(sessionKey: string): void {
    for (const [id, c] of this.changes) if (c.sessionKey === sessionKey) this.changes.delete(id);
    for (const stem of this.segments.keys()) if (stem.startsWith(`${sessionKey}#`)) this.segments.delete(stem);
    this.emitter.fire();
  }

  /**
   * Forgets every change to a file in folder `dir`: a worktree that was discarded, whose files are
   * gone with it, leaves nothing there to review, keep or undo.
   * @returns the ids forgotten.
   */
  forgetUnder(dir: string): string[] {
    const gone = [...this.changes.values()].filter((c) => isWithin(dir, c.path)).map((c) => c.id);
    if (!gone.length) return gone;
    for (const id of gone) this.changes.delete(id);
    // A file's changes in a turn share its path: all of them went, or none.
    for (const [stem, ids] of this.segments) if (!ids.some((id) => this.changes.has(id))) this.segments.delete(stem);
    this.emitter.fire();
    return gone;
  }

  /** The text the file has if nobody but our undos touched it since the agent's change. */
  expectedText(c: FileChange): string | null {
    const undone = new Set(c.decisions.flatMap((d, i) => (d === 'undone' ? [i] : [])));
    if (c.fileDecision === 'undone') return c.base.text;
    if (c.after === null && undone.size === 0) return null;
    return textWithout(c, undone);
  }

  private must(id: string): FileChange {
    const c = this.changes.get(id);
    if (!c) throw new Error(`No change "${id}" to review (it was cleared).`);
    return c;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** The base with every hunk applied except `undone`. */
function textWithout(c: FileChange, undone: ReadonlySet<number>): string {
  const base = c.base.text ?? '';
  // The hunks were computed on this base, so they apply in one pass; hunks skipped before a hunk
  // shift its new-side line numbers, which the one-pass application tracks itself.
  const kept = c.hunks.filter((_, i) => !undone.has(i));
  const once = applyHunks(base, kept);
  if (once !== false) return once;
  const take = new Set(c.hunks.map((_, i) => i).filter((i) => !undone.has(i)));
  return mergeOnto({ hunks: c.hunks, baseText: base }, base, take).text;
}

/** At least half of `text`'s non-blank lines are lines of `into` (and it has some). */
function mostlyIn(text: string, into: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  const there = new Set(into.split(/\r?\n/));
  return lines.length > 0 && lines.filter((l) => there.has(l)).length * 2 >= lines.length;
}

/** The file decision follows the hunks: all kept → kept; all undone → undone; else pending. */
function settle(c: FileChange): void {
  if (!c.hunks.length) return;
  if (c.decisions.every((d) => d === 'undone')) c.fileDecision = 'undone';
  else if (c.decisions.every((d) => d !== 'pending')) c.fileDecision = 'kept';
  else c.fileDecision = 'pending';
}
