/**
 * The keyboard's approve answers the card the person points at: the page reports the waiting card
 * that holds the focus, and the extension's key answers that card, not the oldest one. With no card
 * focused and more than one waiting, the key names the card it would answer before answering.
 */
import assert from 'node:assert/strict';
import type { SessionPatch, SessionState } from '../../../src/acp/session/types';
import { narrowestOption } from '../../../src/acp/session/permissionChoice';
import { parseWebviewMessage } from '../../../src/views/session/messages';
import { FocusedCards, keyTarget } from '../../../src/views/permissionTarget';
import { richState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

/** richState with a second waiting card (p2, newer than p1) after the first. */
function twoWaiting(): SessionState {
  const s = richState();
  s.entries.push({ kind: 'tool_call', id: 'e8', toolCallId: 'tc-second' });
  s.toolCalls['tc-second'] = { toolCallId: 'tc-second', title: 'Run rm -rf build', kind: 'execute', status: 'awaiting_approval', content: [], locations: [], placeholder: false, permissionId: 'p2' };
  s.permissions.p2 = {
    permissionId: 'p2', toolCallId: 'tc-second', state: 'waiting', requestedAt: 3,
    options: [{ optionId: 'second-allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'second-reject', name: 'Reject', kind: 'reject_once' }],
  };
  s.nextEntry = 9;
  return s;
}

const tick = () => new Promise((r) => setTimeout(r, 5));

function patches(h: Harness, list: SessionPatch[]): void {
  h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + list.length, patches: list });
  h.frame();
}

/** The extension's side: every `cardFocus` the page posted, validated as the surface does, into the record the key reads. */
function extensionRecord(h: Harness): FocusedCards {
  const record = new FocusedCards();
  for (const raw of h.host.posted) {
    const m = parseWebviewMessage(raw);
    assert.ok(m.ok);
    if (m.message.type === 'cardFocus') record.report(m.message.key, m.message.permissionId);
  }
  return record;
}

/** What the approve key does, with the page's session in view. */
function pressApprove(h: Harness): { kind: string; optionId?: string } {
  const state = h.app.currentState!;
  const t = keyTarget([{ state }], { inView: [state.key], focused: extensionRecord(h).get() });
  if (t.kind !== 'answer') return { kind: t.kind };
  return { kind: t.kind, optionId: narrowestOption(state.permissions[t.permissionId], 'allow') };
}

describe('the keyboard answers the card with the focus', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('two waiting cards, the second focused: the key answers the second', async () => {
    h = mount();
    h.host.send(snapshot(twoWaiting()));
    h.frame();
    const second = h.$('[data-entry-id="e8"] .tool-card')!;
    assert.equal(second.getAttribute('tabindex'), '-1', 'a waiting card takes the focus when clicked');
    second.focus();
    await tick();
    assert.deepEqual(h.host.ofType('cardFocus').at(-1), { type: 'cardFocus', key: 's1', permissionId: 'p2' });
    assert.deepEqual(pressApprove(h), { kind: 'answer', optionId: 'second-allow' });
  });

  it('Enter on a focused waiting card moves the focus to its Allow (nothing answered); Enter on a control inside it is that control\'s', async () => {
    h = mount();
    h.host.send(snapshot(twoWaiting()));
    h.frame();
    const card = h.$('[data-entry-id="e8"] .tool-card')!;
    const win = card.ownerDocument.defaultView!;
    for (const b of card.querySelectorAll('.perm-option')) b.setAttribute('tabindex', '0');
    card.focus();
    const enter = new win.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true });
    card.dispatchEvent(enter);
    const allow = card.querySelector('.perm-main .perm-option')!;
    assert.equal(card.ownerDocument.activeElement, allow, 'the focus is on the card\'s Allow');
    assert.equal(allow.textContent?.trim(), 'Allow');
    assert.ok(enter.defaultPrevented);
    assert.equal(h.host.ofType('answerPermission').length, 0, 'Enter on the card answers nothing');
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, 'p2', 'the card still holds the focus');
    // A modified Enter, or Enter on a control inside the card, is not the card's.
    const reject = card.querySelectorAll<HTMLElement>('.perm-main .perm-option')[1];
    reject.focus();
    const inner = new win.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true });
    reject.dispatchEvent(inner);
    assert.equal(card.ownerDocument.activeElement, reject);
    assert.ok(!inner.defaultPrevented);
    card.focus();
    const shifted = new win.KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true, cancelable: true });
    card.dispatchEvent(shifted);
    assert.equal(card.ownerDocument.activeElement, card);
  });

  it('a button inside the first card counts as the first card; the focus elsewhere in the page as no card, and then the key says which card before answering', async () => {
    h = mount();
    h.host.send(snapshot(twoWaiting()));
    h.frame();
    // A registered vscode-button is focusable; the unregistered tag in jsdom needs a tabindex to be.
    const button = h.$('[data-entry-id="e7"] .perm-option')!;
    button.setAttribute('tabindex', '0');
    button.focus();
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, 'p1');
    assert.deepEqual(pressApprove(h), { kind: 'answer', optionId: 'allow-once' });
    // The focus leaves the card for the page (a click on the thread's text, the prompt box).
    button.blur();
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, null);
    const state = h.app.currentState!;
    const t = keyTarget([{ state }], { inView: ['s1'], focused: extensionRecord(h).get() });
    assert.equal(t.kind, 'confirm');
    assert.equal(t.kind === 'confirm' && t.permissionId, 'p1');
    assert.match(t.kind === 'confirm' ? t.why : '', /2 requests wait in this session and no card has the focus/);
  });

  it('"Allow more…" and the choices it opens count as their card: the keys answer it while the focus is there', async () => {
    h = mount();
    h.host.send(snapshot(twoWaiting()));
    h.frame();
    const toggle = h.$('[data-entry-id="e7"] .perm-more-toggle')!;
    toggle.setAttribute('tabindex', '0');
    toggle.focus();
    toggle.click();
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, 'p1');
    assert.ok(h.doc.activeElement === toggle, 'opening the choices leaves the focus on "Allow more…"');
    const grant = h.$('[data-entry-id="e7"] .perm-more .perm-grant[data-grant="session"]')!;
    grant.setAttribute('tabindex', '0');
    grant.focus();
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, 'p1');
    assert.deepEqual(pressApprove(h), { kind: 'answer', optionId: 'allow-once' });
  });

  it('the focused card keeps the focus when an update rebuilds it, and stops counting once answered', async () => {
    h = mount();
    h.host.send(snapshot(twoWaiting()));
    h.frame();
    // The unregistered vscode-textarea in jsdom needs a tabindex to be focusable.
    h.$('.prompt-input')!.setAttribute('tabindex', '0');
    h.$('[data-entry-id="e8"] .tool-card')!.focus();
    await tick();
    const tc = h.app.currentState!.toolCalls['tc-second'];
    patches(h, [{ op: 'toolCall', toolCall: { ...tc, title: 'Run rm -rf build (updated)' } }]);
    await tick();
    assert.ok(h.$('[data-entry-id="e8"] .tool-card')!.contains(h.doc.activeElement), 'the rebuilt card has the focus');
    assert.deepEqual(pressApprove(h), { kind: 'answer', optionId: 'second-allow' });
    const p2 = h.app.currentState!.permissions.p2;
    patches(h, [{ op: 'permission', permission: { ...p2, state: 'selected', optionId: 'second-allow', answeredBy: 'person' } }]);
    await tick();
    assert.equal(h.host.ofType('cardFocus').at(-1)?.permissionId, null);
    // Answered while it held the focus: the caret is in the prompt box, not on the page (nor on the
    // other waiting card, which a second key press would answer unseen).
    assert.ok(h.$('.prompt-input')!.contains(h.doc.activeElement) || h.doc.activeElement === h.$('.prompt-input'), `the prompt box has the focus, not ${h.doc.activeElement?.tagName}`);
    // One card waits now and nothing is focused: that one, as before.
    assert.deepEqual(pressApprove(h), { kind: 'answer', optionId: 'allow-once' });
  });
});

describe('which card the key answers (permissionTarget)', () => {
  const session = (key: string, waiting: { id: string; at: number }[]) => ({
    state: {
      key,
      permissions: Object.fromEntries(waiting.map((w) => [w.id, { permissionId: w.id, toolCallId: `tc-${w.id}`, state: 'waiting' as const, requestedAt: w.at, options: [] }])),
    },
  });

  it('the focused card of a session in view; not one in a page out of view', () => {
    const a = session('a', [{ id: 'p1', at: 1 }, { id: 'p2', at: 2 }]);
    assert.deepEqual(keyTarget([a], { inView: ['a'], focused: { key: 'a', permissionId: 'p2' } }), { kind: 'answer', key: 'a', permissionId: 'p2', by: 'focus' });
    assert.equal(keyTarget([a], { inView: [], focused: { key: 'a', permissionId: 'p2' } }).kind, 'confirm');
    // A focus report of a card that no longer waits does not count.
    assert.equal(keyTarget([a], { inView: ['a'], focused: { key: 'a', permissionId: 'gone' } }).kind, 'confirm');
    // The focused card withdrawn and another asked in its place: the only card waiting now is not
    // the one the person was looking at, so the key asks.
    const swapped = keyTarget([session('a', [{ id: 'b', at: 3 }])], { inView: ['a'], focused: { key: 'a', permissionId: 'p2' } });
    assert.equal(swapped.kind, 'confirm');
    assert.match(swapped.kind === 'confirm' ? swapped.why : '', /no longer waiting/);
  });

  it('the only waiting card of the one session in view; else it asks, naming the oldest', () => {
    const a = session('a', [{ id: 'p1', at: 1 }]);
    const b = session('b', [{ id: 'q1', at: 0 }]);
    assert.deepEqual(keyTarget([b, a], { inView: ['a'] }), { kind: 'answer', key: 'a', permissionId: 'p1', by: 'only' });
    const both = keyTarget([a, b], { inView: ['a', 'b'] });
    assert.equal(both.kind, 'confirm');
    assert.match(both.kind === 'confirm' ? both.why : '', /More than one session in view/);
    const away = keyTarget([a, b], { inView: [] });
    assert.deepEqual(away.kind === 'confirm' && [away.key, away.permissionId], ['a', 'p1']);
    assert.match(away.kind === 'confirm' ? away.why : '', /not in view/);
    assert.deepEqual(keyTarget([session('c', [])], { inView: ['c'] }), { kind: 'none' });
  });

  it('a Sessions board row answers only its own session: its focused card, its only card, or it asks', () => {
    const a = session('a', [{ id: 'p1', at: 1 }, { id: 'p2', at: 2 }]);
    const b = session('b', [{ id: 'q1', at: 0 }]);
    assert.deepEqual(keyTarget([a, b], { named: 'b', inView: ['a'], focused: { key: 'a', permissionId: 'p2' } }), { kind: 'answer', key: 'b', permissionId: 'q1', by: 'only' });
    assert.deepEqual(keyTarget([a, b], { named: 'a', inView: [], focused: { key: 'a', permissionId: 'p2' } }), { kind: 'answer', key: 'a', permissionId: 'p2', by: 'focus' });
    assert.equal(keyTarget([a, b], { named: 'a', inView: ['a'] }).kind, 'confirm');
    assert.deepEqual(keyTarget([a, b], { named: 'zzz', inView: ['a'] }), { kind: 'none' });
  });

  it('a page saying none of its cards has the focus clears only its own session\'s report', () => {
    const f = new FocusedCards();
    f.report('a', 'p1');
    f.report('b', null);
    assert.deepEqual(f.get(), { key: 'a', permissionId: 'p1' });
    f.report('a', null);
    assert.equal(f.get(), undefined);
  });
});
