/**
 * The extension's side of Restore checkpoint and Edit and resend on a message: the page names an
 * entry, and the extension finds its turn through the review (never by counting what a page holds),
 * refuses what has no checkpoint or would race the agent, and hands back names relative to the
 * session's folder with why each file is left alone. Messages pass the same zod schema as the
 * surface's.
 */
import assert from 'node:assert/strict';
import type { SessionState } from '../../../src/acp/session/types';
import { ReviewModel } from '../../../src/edits/review';
import { MessageActions } from '../../../src/views/session/messageActions';
import { parseWebviewMessage } from '../../../src/views/session/messages';
import { SentContext } from '../../../src/views/session/sentContext';

function session(status: SessionState['status'] = 'ready'): { state: SessionState } {
  const state = {
    key: 's',
    cwd: '/w',
    status,
    entries: [
      { kind: 'user', id: 'e0', text: 'replayed from before', messageId: 'm0' },
      { kind: 'user', id: 'e1', text: 'first', echo: 0, context: ['notes.md'] },
      { kind: 'agent', id: 'e2', text: 'done', attachments: [] },
      { kind: 'user', id: 'e5', text: 'second', echo: 0 },
    ],
  } as unknown as SessionState;
  return { state };
}

function setUp(status: SessionState['status'] = 'ready') {
  const model = new ReviewModel();
  model.turnStarted('s', 1, 'first', 'e1');
  model.record('s', 1, '/w/src/a.txt', 'client', { text: 'a0\n' }, 'a1\n', 't1', 1);
  model.turnStarted('s', 2, 'second', 'e5');
  model.record('s', 2, '/w/src/a.txt', 'client', { text: 'a1\n' }, 'a2\n', 't2', 2);
  model.record('s', 2, '/w/b.txt', 'agent', { text: 'b0\n' }, 'b2\n', 't3', 3);
  const s = session(status);
  const restores: { key: string; turn: number }[] = [];
  const sent = new SentContext();
  const actions = new MessageActions({
    session: (key) => (key === 's' ? s : undefined),
    model,
    sent,
    restore: async (key, turn, reasons) => {
      restores.push({ key, turn });
      reasons.set('/w/b.txt', 'you changed it since');
      return { restored: ['/w/src/a.txt'], skipped: ['/w/b.txt'] };
    },
  });
  return { model, s, restores, sent, actions };
}

describe('message actions (extension side)', () => {
  it('the page\'s three requests pass the webview schema; an entry id must be a bounded string', () => {
    for (const type of ['previewCheckpoint', 'restoreCheckpoint', 'editMessage'] as const) {
      assert.ok(parseWebviewMessage({ type, key: 's', entryId: 'e1' }).ok);
      assert.ok(!parseWebviewMessage({ type, key: 's', entryId: '' }).ok);
      assert.ok(!parseWebviewMessage({ type, key: 's', entryId: 'x'.repeat(101) }).ok);
      assert.ok(!parseWebviewMessage({ type, key: 's' }).ok);
    }
  });

  it('the first message: both turns\' files, named in the session\'s folder, with the later turn counted', () => {
    const { model, actions } = setUp();
    model.noteLater('/w/b.txt', 'person');
    assert.deepEqual(actions.preview('s', 'e1'), {
      type: 'checkpointPreview', key: 's', entryId: 'e1', laterTurns: 1,
      files: [{ name: 'src/a.txt' }, { name: 'b.txt', leftAlone: 'you changed it since' }],
    });
    assert.deepEqual(actions.preview('s', 'e5').laterTurns, 0);
  });

  it('restores the turn the message started, and says what was left alone and why', async () => {
    const { actions, restores } = setUp();
    const r = await actions.restore('s', 'e1');
    assert.deepEqual(restores, [{ key: 's', turn: 1 }]);
    assert.deepEqual(r, { type: 'checkpointRestored', key: 's', entryId: 'e1', restored: ['src/a.txt'], skipped: [{ name: 'b.txt', why: 'you changed it since' }] });
  });

  it('refuses without restoring: a message that started no turn here, an unknown entry, a running turn, an ended session', async () => {
    const { actions, restores } = setUp();
    for (const entryId of ['e0', 'e2', 'nope']) {
      const r = await actions.restore('s', entryId);
      assert.match(r.refused ?? '', /no checkpoint was kept before this message/);
      assert.match(actions.preview('s', entryId).refused ?? '', /no checkpoint/);
    }
    assert.match((await actions.restore('gone', 'e1')).refused ?? '', /session has ended/);
    const busy = setUp('prompting');
    assert.match((await busy.actions.restore('s', 'e1')).refused ?? '', /still working/);
    assert.match(busy.actions.preview('s', 'e1').refused ?? '', /still working/);
    assert.deepEqual([...restores, ...busy.restores], []);
  });

  it('a second restore while one runs is refused', async () => {
    const { model, s } = setUp();
    let finish!: () => void;
    const actions = new MessageActions({
      session: () => s, model, sent: new SentContext(),
      restore: () => new Promise((resolve) => (finish = () => resolve({ restored: [], skipped: [] }))),
    });
    const first = actions.restore('s', 'e1');
    assert.match((await actions.restore('s', 'e5')).refused ?? '', /already under way/);
    finish();
    assert.equal((await first).refused, undefined);
  });

  it('Edit and resend: the words, the attachments still known, and how many files a restore would put back', () => {
    const { actions, sent } = setUp();
    assert.deepEqual(actions.forEdit('s', 'e1'), { type: 'messageForEdit', key: 's', entryId: 'e1', text: 'first', context: [], missing: ['notes.md'], restorable: 2 });
    sent.note('s', 'first', [{ kind: 'file', path: '/w/notes.md' }], ['notes.md']);
    assert.deepEqual(actions.forEdit('s', 'e1')?.context, [{ item: { kind: 'file', path: '/w/notes.md' }, label: 'notes.md' }]);
    assert.equal(actions.forEdit('s', 'e0')?.restorable, 0, 'a replayed message is edited, not restored to');
    assert.equal(actions.forEdit('s', 'e0')?.text, 'replayed from before');
    assert.equal(actions.forEdit('s', 'e2'), undefined, 'not a message of the person');
  });
});

describe('what went with each prompt', () => {
  it('is found by the prompt\'s words and labels, per session; the oldest go past the budget', () => {
    const sent = new SentContext(400);
    const file = (p: string) => ({ kind: 'file' as const, path: p });
    sent.note('s', 'a', [file('/w/a')], ['a']);
    sent.note('t', 'a', [file('/w/other')], ['a']);
    assert.deepEqual(sent.find('s', 'a', ['a']).items.map((i) => i.item), [file('/w/a')]);
    assert.deepEqual(sent.find('s', 'a', ['b']), { items: [], missing: ['b'] });
    assert.deepEqual(sent.find('s', 'x', []), { items: [], missing: [] });
    sent.note('s', 'big', [{ kind: 'selection', path: '/w/x', startLine: 1, endLine: 2, text: 'y'.repeat(300) }], ['x:1-2']);
    assert.deepEqual(sent.find('s', 'a', ['a']).missing, ['a'], 'the oldest went');
    assert.equal(sent.find('s', 'big', ['x:1-2']).items.length, 1);
    sent.note('s', 'huge', [{ kind: 'selection', path: '/w/x', startLine: 1, endLine: 2, text: 'y'.repeat(500) }], ['x:1-2']);
    assert.deepEqual(sent.find('s', 'huge', ['x:1-2']).missing, ['x:1-2'], 'one prompt over the whole budget is not kept');
    sent.forget('s');
    assert.deepEqual(sent.find('s', 'big', ['x:1-2']).missing, ['x:1-2']);
  });
});
