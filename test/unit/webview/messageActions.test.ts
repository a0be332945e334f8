/**
 * The way back from a message, in the page: Restore asks the extension first and shows the count
 * of files before anything is written; the person's confirmation sends the restore, and the answer
 * (restored, left alone and why) is said under the message. Edit puts the message's words and
 * attachments into the box with a line that says it goes out as a new turn, offers the restore,
 * and takes the edit back on ×.
 */
import assert from 'node:assert/strict';
import { endedState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

describe('restore checkpoint and edit, on a message', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  function setup() {
    h = mount();
    const s = endedState();
    // e0 is the person's own prompt (it started a turn); e10 a message the agent replayed.
    s.entries[0] = { kind: 'user', id: 'e0', text: 'Add an optional "excited" flag', echo: 0, context: ['src/greet.ts'] };
    s.entries.push({ kind: 'user', id: 'e10', text: 'from an earlier run' });
    s.nextEntry = 11;
    h.host.send(snapshot(s));
    h.frame();
    const msg = h.root.querySelector<HTMLElement>('[data-entry-id="e0"]')!;
    const click = (el: Element | null) => el!.dispatchEvent(new h.dom.window.MouseEvent('click', { bubbles: true }));
    return { msg, click };
  }

  it('each message has Restore and Edit as buttons with names; a replayed one only Edit', () => {
    const { msg } = setup();
    assert.deepEqual([...msg.querySelectorAll('.msg-action')].map((b) => [b.tagName, b.textContent, (b as HTMLElement).hidden]), [['BUTTON', 'Restore', false], ['BUTTON', 'Edit', false]]);
    const replayed = h.root.querySelector('[data-entry-id="e10"]')!;
    assert.equal(replayed.querySelector<HTMLElement>('.restore-checkpoint')!.hidden, true);
    assert.equal(replayed.querySelector<HTMLElement>('.edit-message')!.hidden, false);
  });

  it('Restore: asks, shows the count and the names, writes nothing until confirmed, then says how it went', () => {
    const { msg, click } = setup();
    click(msg.querySelector('.restore-checkpoint'));
    assert.deepEqual(h.host.ofType('previewCheckpoint'), [{ type: 'previewCheckpoint', key: 's1', entryId: 'e0' }]);
    h.host.send({ type: 'checkpointPreview', key: 's1', entryId: 'e0', laterTurns: 1, files: [{ name: 'src/greet.ts' }, { name: 'new.ts' }, { name: 'mine.ts', leftAlone: 'you changed it since' }] });
    const panel = msg.querySelector<HTMLElement>('.msg-panel')!;
    assert.equal(panel.hidden, false);
    assert.match(panel.textContent!, /Restore 2 files to before this message\?/);
    assert.match(panel.textContent!, /src\/greet\.ts, new\.ts/);
    assert.match(panel.textContent!, /Undoes this turn and the one after it/);
    assert.match(panel.textContent!, /agent still remembers/);
    assert.match(panel.textContent!, /Left alone: mine\.ts \(you changed it since\)/);
    assert.deepEqual(h.host.ofType('restoreCheckpoint'), [], 'nothing restored before the confirmation');
    click(panel.querySelector('.msg-confirm'));
    assert.deepEqual(h.host.ofType('restoreCheckpoint'), [{ type: 'restoreCheckpoint', key: 's1', entryId: 'e0' }]);
    h.host.send({ type: 'checkpointRestored', key: 's1', entryId: 'e0', restored: ['src/greet.ts', 'new.ts'], skipped: [{ name: 'mine.ts', why: 'you changed it since' }] });
    assert.match(panel.textContent!, /Restored 2 files: src\/greet\.ts, new\.ts\./);
    assert.match(panel.querySelector('.msg-left-alone')!.textContent!, /mine\.ts \(you changed it since\)/);
    click(panel.querySelector('.msg-close'));
    assert.equal(panel.hidden, true);
  });

  it('Restore with nothing to put back, or refused, says so and offers no restore', () => {
    const { msg, click } = setup();
    click(msg.querySelector('.restore-checkpoint'));
    h.host.send({ type: 'checkpointPreview', key: 's1', entryId: 'e0', laterTurns: 0, files: [] });
    const panel = msg.querySelector<HTMLElement>('.msg-panel')!;
    assert.match(panel.textContent!, /Nothing to restore/);
    assert.equal(panel.querySelector('.msg-confirm'), null);
    h.host.send({ type: 'checkpointPreview', key: 's1', entryId: 'e0', laterTurns: 0, files: [], refused: 'the agent is still working in this session.' });
    assert.match(panel.textContent!, /Not restored: the agent is still working/);
    assert.equal(panel.querySelector('.msg-confirm'), null);
    // An answer for another session's message changes nothing here.
    h.host.send({ type: 'checkpointPreview', key: 'other', entryId: 'e0', laterTurns: 0, files: [{ name: 'x' }] });
    assert.match(panel.textContent!, /still working/);
  });

  it('Edit opens the message in place: its words in a box where they were, its attachments named, "Restore N files first" ticked; Escape puts it back and the prompt box keeps its draft', () => {
    const { msg, click } = setup();
    const input = h.$('.prompt-input') as HTMLElement & { value?: string };
    input.value = 'half-typed draft';
    click(msg.querySelector('.edit-message'));
    assert.deepEqual(h.host.ofType('editMessage'), [{ type: 'editMessage', key: 's1', entryId: 'e0' }]);
    h.host.send({ type: 'messageForEdit', key: 's1', entryId: 'e0', text: 'Add an optional "excited" flag', context: [{ item: { kind: 'file', path: '/work/demo/src/greet.ts' }, label: 'src/greet.ts' }], missing: [], restorable: 2 });
    const editor = msg.querySelector<HTMLElement>('.msg-editor')!;
    assert.equal(editor.hidden, false, 'the editor is in the message');
    assert.equal((msg.querySelector('.user-text') as HTMLElement).hidden, true, 'the words it replaces are hidden');
    const box = editor.querySelector('.msg-edit-input') as HTMLElement & { value?: string };
    assert.equal(box.value, 'Add an optional "excited" flag');
    assert.deepEqual([...editor.querySelectorAll('.chip-label')].map((c) => c.textContent), ['src/greet.ts']);
    assert.match(editor.textContent!, /new turn; the agent still remembers what came after this message/);
    const restore = editor.querySelector<HTMLInputElement>('.msg-edit-restore')!;
    assert.equal(restore.checked, true, 'the restore is ticked');
    assert.match(editor.querySelector('.msg-edit-restore-row')!.textContent!, /^Restore 2 files to before this message first$/);
    assert.equal(input.value, 'half-typed draft', 'the prompt box keeps what it held');
    box.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    assert.equal(editor.hidden, true);
    assert.equal((msg.querySelector('.user-text') as HTMLElement).hidden, false);
    assert.equal(msg.querySelector('.user-text')!.textContent, 'Add an optional "excited" flag');
    assert.deepEqual(h.host.ofType('resendMessage'), [], 'nothing sent');
  });

  it('Send (or Enter) posts one resendMessage: the edited words, their attachments, and the restore as ticked', () => {
    const { msg, click } = setup();
    click(msg.querySelector('.edit-message'));
    h.host.send({ type: 'messageForEdit', key: 's1', entryId: 'e0', text: 'old words', context: [{ item: { kind: 'file', path: '/work/demo/src/greet.ts' }, label: 'src/greet.ts' }], missing: ['shot.png'], restorable: 1 });
    let editor = msg.querySelector<HTMLElement>('.msg-editor')!;
    assert.match(editor.textContent!, /Not attached again \(no longer held\): shot\.png/);
    (editor.querySelector('.msg-edit-input') as HTMLElement & { value?: string }).value = 'new words';
    click(editor.querySelector('.msg-edit-send'));
    assert.deepEqual(h.host.ofType('resendMessage'), [{ type: 'resendMessage', key: 's1', entryId: 'e0', text: 'new words', restore: true, context: [{ kind: 'file', path: '/work/demo/src/greet.ts' }] }]);
    assert.equal(editor.hidden, true, 'the message is itself again');
    // Unticked, and sent with Enter; with nothing to restore there is no box to tick.
    click(msg.querySelector('.edit-message'));
    h.host.send({ type: 'messageForEdit', key: 's1', entryId: 'e0', text: 'old words', context: [], missing: [], restorable: 1 });
    editor = msg.querySelector<HTMLElement>('.msg-editor')!;
    editor.querySelector<HTMLInputElement>('.msg-edit-restore')!.checked = false;
    const box = editor.querySelector('.msg-edit-input') as HTMLElement & { value?: string };
    box.value = 'other words';
    box.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    assert.deepEqual(h.host.ofType('resendMessage').at(-1), { type: 'resendMessage', key: 's1', entryId: 'e0', text: 'other words', restore: false });
    click(msg.querySelector('.edit-message'));
    h.host.send({ type: 'messageForEdit', key: 's1', entryId: 'e0', text: 'old words', context: [], missing: [], restorable: 0 });
    assert.equal(msg.querySelector('.msg-edit-restore'), null, 'nothing to restore: nothing to tick');
  });
});
