/**
 * The end-of-turn row in the page: placed at the end of its turn (before the person's next prompt,
 * or last), its words and buttons from the extension's message alone, its buttons and files asking
 * the extension, and gone when the page shows another session.
 */
import assert from 'node:assert/strict';
import type { SessionPatch, SessionState } from '../../../src/acp/session/types';
import type { TurnFileSummary } from '../../../src/edits/turnSummary';
import type { HostMessage } from '../../../src/views/session/protocol';
import { parseWebviewMessage } from '../../../src/views/session/messages';
import { rowWords } from '../../../webview/session/turnChanges';
import { snapshot } from './fixtures';
import { type Harness, mount } from './harness';

function twoTurns(): SessionState {
  return {
    key: 's1', sessionId: 's1', agentId: 'demo', agentName: 'Demo agent', cwd: '/w', status: 'ready',
    entries: [
      { kind: 'user', id: 'e0', text: 'edit greet.ts', echo: 0 },
      { kind: 'agent', id: 'e1', text: 'Done.', attachments: [] },
      { kind: 'user', id: 'e2', text: 'and the readme', echo: 0 },
      { kind: 'agent', id: 'e3', text: 'Done too.', attachments: [] },
    ],
    toolCalls: {}, permissions: {}, terminals: {}, plan: [], availableCommands: [], rev: 10, nextEntry: 4,
  };
}

const file = (name: string, state: TurnFileSummary['state'], extra: Partial<TurnFileSummary> = {}): TurnFileSummary => ({ changeId: `s1#1#/w/${name}`, name, dir: '', what: 'changed', added: 3, removed: 1, state, ...extra });
type Rows = Extract<HostMessage, { type: 'turnChanges' }>;
const rows = (turns: Rows['turns'], extra: Partial<Rows> = {}): Rows => ({ type: 'turnChanges', key: 's1', turns, ...extra });
const list = (h: Harness) => Array.from(h.$('.thread-list')!.children).map((el) => el.getAttribute('data-entry-id') ?? `row${el.getAttribute('data-turn')}`);

describe('the end-of-turn row', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('sits at the end of each turn: before the next prompt, and last for the newest', () => {
    h = mount();
    h.host.send(snapshot(twoTurns()));
    h.host.send(rows([
      { turn: 1, promptEntryId: 'e0', endsBefore: 'e2', files: [file('greet.ts', 'pending')], updatedAt: 1 },
      { turn: 2, promptEntryId: 'e2', files: [file('README.md', 'pending', { what: 'created', added: 9, removed: 0 }), file('b.ts', 'pending')], updatedAt: 2 },
    ]));
    assert.deepEqual(list(h), ['e0', 'e1', 'row1', 'e2', 'e3', 'row2']);
    const row = h.$('.turn-changes[data-turn="2"]')!;
    assert.equal(row.querySelector('.tc-count')?.textContent, '2 files changed');
    assert.deepEqual(Array.from(row.querySelectorAll('[data-action]')).map((b) => b.textContent), ['Review', 'Keep all', 'Undo all']);
    assert.deepEqual(Array.from(row.querySelectorAll('.tc-file')).map((f) => f.textContent), ['README.md+9−0new', 'b.ts+3−1']);
  });

  it('a new prompt the extension has not placed yet still ends the turn before it; a snapshot keeps the rows', () => {
    h = mount();
    const s = twoTurns();
    s.entries = s.entries.slice(0, 2);
    s.nextEntry = 2;
    h.host.send(snapshot(s));
    h.host.send(rows([{ turn: 1, promptEntryId: 'e0', files: [file('greet.ts', 'pending')], updatedAt: 1 }]));
    assert.deepEqual(list(h), ['e0', 'e1', 'row1']);
    const patches: SessionPatch[] = [{ op: 'entry', entry: { kind: 'user', id: 'e2', text: 'next', echo: 0 } }, { op: 'meta', meta: { status: 'prompting' } }];
    h.host.send({ type: 'patches', key: 's1', rev: 12, patches });
    h.frame();
    assert.deepEqual(list(h), ['e0', 'e1', 'row1', 'e2']);
    h.host.send(snapshot(h.app.currentState!));
    assert.deepEqual(list(h), ['e0', 'e1', 'row1', 'e2'], 'the rebuilt thread gets its rows back');
  });

  it('its buttons and files ask the extension; Keep and Undo wait for its answer', () => {
    h = mount();
    h.host.send(snapshot(twoTurns()));
    h.host.send(rows([{ turn: 2, promptEntryId: 'e2', files: [file('b.ts', 'pending')], updatedAt: 2 }]));
    h.$('.tc-keep')!.click();
    assert.deepEqual(h.host.ofType('turnAction'), [{ type: 'turnAction', key: 's1', turn: 2, action: 'keep' }]);
    assert.ok(h.$('.tc-keep')!.hasAttribute('disabled') && h.$('.tc-undo')!.hasAttribute('disabled'));
    h.$('.tc-undo')!.click();
    assert.equal(h.host.ofType('turnAction').length, 1, 'no second action while the first is under way');
    h.$('.tc-open')!.click();
    assert.deepEqual(h.host.ofType('openChange'), [{ type: 'openChange', key: 's1', changeId: 's1#1#/w/b.ts' }]);
    // The extension answers with the row as the review has it now.
    h.host.send(rows([{ turn: 2, promptEntryId: 'e2', files: [file('b.ts', 'kept')], updatedAt: 3 }]));
    const row = h.$('.turn-changes[data-turn="2"]')!;
    assert.equal(row.querySelector('.tc-count')?.textContent, '1 file kept');
    assert.deepEqual(Array.from(row.querySelectorAll('[data-action]')).map((b) => [b.textContent, b.hasAttribute('disabled')]), [['Review', false], ['Undo all', false]]);
    assert.equal(row.querySelector('.tc-state')?.getAttribute('aria-label'), 'kept');
  });

  it('says what happened in as few words as it takes', () => {
    assert.equal(rowWords([file('a', 'pending'), file('b', 'pending'), file('c', 'pending')]), '3 files changed');
    assert.equal(rowWords([file('a', 'kept'), file('b', 'undone'), file('c', 'pending')]), '3 files changed · 1 kept, 1 undone');
    assert.equal(rowWords([file('a', 'kept'), file('b', 'partly'), file('c', 'kept')]), '3 files kept');
    assert.equal(rowWords([file('a', 'undone')]), '1 file undone');
    assert.equal(rowWords([file('a', 'kept'), file('b', 'undone')]), '1 kept, 1 undone');
    assert.equal(rowWords([file('a', 'pending')], { applied: false }), '1 file changed in the worktree');
    assert.equal(rowWords([file('a', 'kept')], { applied: true }), '1 file kept · applied to the main folder');
  });

  it('in a worktree: Apply to main folder once nothing in it waits for review, on the newest row', () => {
    h = mount();
    h.host.send(snapshot(twoTurns()));
    const wt = { worktree: { branch: 'switchboard/demo-1', applied: false } };
    h.host.send(rows([{ turn: 1, promptEntryId: 'e0', endsBefore: 'e2', files: [file('a.ts', 'pending')], updatedAt: 1 }, { turn: 2, promptEntryId: 'e2', files: [file('b.ts', 'kept')], updatedAt: 2 }], wt));
    assert.equal(h.$('.tc-apply'), null, 'turn 1 still waits');
    h.host.send(rows([{ turn: 1, promptEntryId: 'e0', endsBefore: 'e2', files: [file('a.ts', 'undone')], updatedAt: 1 }, { turn: 2, promptEntryId: 'e2', files: [file('b.ts', 'kept')], updatedAt: 2 }], wt));
    assert.deepEqual(h.$$('.tc-apply').map((b) => b.closest('.turn-changes')?.getAttribute('data-turn')), ['2']);
    h.$('.tc-apply')!.click();
    assert.deepEqual(h.host.ofType('turnAction').at(-1), { type: 'turnAction', key: 's1', turn: 2, action: 'apply' });
  });

  it('lists five files, else four and "N more"; another session\'s page has none of these rows', () => {
    h = mount();
    h.host.send(snapshot(twoTurns()));
    const many = Array.from({ length: 7 }, (_, i) => file(`f${i}.ts`, 'pending'));
    h.host.send(rows([{ turn: 2, promptEntryId: 'e2', files: many, updatedAt: 2 }]));
    assert.equal(h.$$('.tc-file').length, 4);
    h.$('.tc-more')!.click();
    assert.equal(h.$$('.tc-file').length, 7);
    h.host.send(snapshot({ ...twoTurns(), key: 's2' }));
    assert.equal(h.$$('.turn-changes').length, 0);
    h.host.send(rows([{ turn: 2, promptEntryId: 'e2', files: many, updatedAt: 2 }]));
    assert.equal(h.$$('.turn-changes').length, 0, 'rows of the session no longer shown are dropped');
  });

  it('what it sends is checked by the extension: an action it does not know, or no turn, is refused', () => {
    assert.equal(parseWebviewMessage({ type: 'turnAction', key: 's1', turn: 1, action: 'keep' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'turnAction', key: 's1', turn: 1, action: 'delete' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'turnAction', key: 's1', turn: -1, action: 'undo' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'openChange', key: 's1', changeId: '' }).ok, false);
  });
});
