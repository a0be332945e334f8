import assert from 'node:assert/strict';
import { endedState, snapshot } from './fixtures';
import { earlierPage, windowState } from '../../../src/acp/session/window';
import type { SessionState } from '../../../src/acp/session/types';
import { type Harness, mount } from './harness';
import { FILL_ENTRIES, FIRST_PAINT_ENTRIES } from '../../../webview/session/thread';

/** Lets the page's tasks after a frame (the fill after the first paint) run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('composer: slash commands, @-mentions, attachments, config pickers', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  function setup(extra: Partial<ReturnType<typeof endedState>> = {}) {
    h = mount();
    h.host.send(snapshot({ ...endedState(), ...extra }));
    const input = h.$('.prompt-input') as HTMLElement & { value?: string };
    const type = (text: string) => {
      input.value = text;
      input.dispatchEvent(new h.dom.window.Event('input', { bubbles: true }));
    };
    const key = (k: string) => input.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { bubbles: true, cancelable: true, key: k }));
    return { input, type, key };
  }

  it('completes the agent\'s slash commands after a / at the start', () => {
    const { input, type, key } = setup({ availableCommands: [{ name: 'review', description: 'Review the diff' }, { name: 'reset', description: 'Start over' }, { name: 'plan', description: 'Plan' }] });
    type('/re');
    assert.deepEqual(h.$$('.suggest-item .suggest-label').map((e) => e.textContent), ['/review', '/reset']);
    key('ArrowDown');
    assert.equal(h.$('.suggest-item.active .suggest-label')?.textContent, '/reset');
    key('Enter');
    assert.equal(input.value, '/reset ');
    assert.ok(h.$('.suggest')!.hidden, 'the list closes');
    assert.deepEqual(h.host.ofType('prompt'), [], 'accepting a suggestion does not send');
    type('no slash here /re');
    assert.ok(h.$('.suggest')!.hidden);
  });

  it('asks the extension for @-mentions, attaches the chosen file as a chip and sends it with the prompt', () => {
    const { input, type, key } = setup();
    type('look at @gree');
    const search = h.host.ofType('searchMentions').at(-1)!;
    assert.equal(search.query, 'gree');
    // An older answer is ignored; the current one is listed.
    h.host.send({ type: 'mentionResults', requestId: search.requestId - 1, items: [{ item: { kind: 'file', path: '/w/old.ts' }, label: 'old.ts' }] });
    assert.ok(h.$('.suggest')!.hidden);
    h.host.send({
      type: 'mentionResults', requestId: search.requestId,
      items: [
        { item: { kind: 'file', path: '/w/src/greet.ts' }, label: 'greet.ts', detail: 'src/greet.ts' },
        { item: { kind: 'symbol', path: '/w/src/greet.ts', name: 'greet', startLine: 3, endLine: 9 }, label: 'greet', detail: 'Function · src/greet.ts:3' },
      ],
    });
    assert.deepEqual(h.$$('.suggest-item .suggest-label').map((e) => e.textContent), ['greet.ts', '# greet']);
    key('Enter');
    assert.equal(input.value, 'look at @greet.ts ');
    assert.deepEqual(h.$$('.chip .chip-label').map((e) => e.textContent), ['greet.ts']);
    // A selection from the editor arrives as a chip too; removing one drops it.
    h.host.send({ type: 'contextItem', item: { kind: 'selection', path: '/w/src/a.ts', startLine: 2, endLine: 4, text: 'x' }, label: 'src/a.ts:2-4' });
    h.host.send({ type: 'contextItem', item: { kind: 'diagnostics', count: 1, text: 'Problems' }, label: '1 problem' });
    assert.equal(h.$$('.chips .chip').length, 3);
    (h.$$('.chips .chip-remove')[2] as HTMLElement).click();
    key('Enter');
    assert.deepEqual(h.host.ofType('prompt').at(-1), {
      type: 'prompt', key: 's1', text: 'look at @greet.ts',
      context: [{ kind: 'file', path: '/w/src/greet.ts' }, { kind: 'selection', path: '/w/src/a.ts', startLine: 2, endLine: 4, text: 'x' }],
    });
    assert.ok(h.$('.chips')!.hidden, 'the chips go with the prompt');
  });

  it('shows what went with a prompt in the thread, and the agent\'s config options as pickers', () => {
    setup({
      configOptions: [
        { id: 'model', name: 'Model', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'Model A' }, { value: 'b', name: 'Model B', group: 'Fast' }] },
        { id: 'explain', name: 'Explain steps', type: 'boolean', currentValue: false },
      ],
    });
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'entry', entry: { kind: 'user', id: 'e20', text: 'with context', context: ['src/a.ts:2-4', 'greet.ts'] } }] });
    h.frame();
    assert.deepEqual(h.$$('[data-entry-id="e20"] .user-context .chip-label').map((e) => e.textContent), ['src/a.ts:2-4', 'greet.ts']);
    const select = h.$('.config-select[data-config-id="model"]') as HTMLElement & { value?: string };
    assert.deepEqual(h.$$('.config-select vscode-option').map((o) => o.textContent), ['Model A', 'Fast: Model B']);
    select.value = 'b';
    select.dispatchEvent(new h.dom.window.Event('change'));
    const box = h.$('.config-checkbox') as HTMLInputElement;
    box.checked = true;
    box.dispatchEvent(new h.dom.window.Event('change'));
    assert.deepEqual(h.host.ofType('setConfigOption'), [
      { type: 'setConfigOption', key: 's1', configId: 'model', value: 'b' },
      { type: 'setConfigOption', key: 's1', configId: 'explain', value: true },
    ]);
  });
});

describe('huge sessions', () => {
  let h: Harness;
  afterEach(() => h?.dispose());


  /** An ended session of `n` entries: read tool calls and answers, alternating; `content` per call. */
  const sessionOf = (n: number, content: (i: number) => SessionState['toolCalls'][string]['content'] = () => []) => {
    const s = endedState();
    s.entries = [];
    s.toolCalls = {};
    s.permissions = {};
    for (let i = 0; i < n; i++) {
      if (i % 2) s.entries.push({ kind: 'agent', id: `e${i}`, text: `answer ${i}`, attachments: [] });
      else {
        s.entries.push({ kind: 'tool_call', id: `e${i}`, toolCallId: `t${i}` });
        s.toolCalls[`t${i}`] = { toolCallId: `t${i}`, title: `Read ${i}`, kind: 'read', status: 'completed', content: content(i), locations: [], placeholder: false };
      }
    }
    s.nextEntry = n;
    return s;
  };

  it('paints the newest entries of a 20,000-entry session first, the rest of the page just after, earlier pages on request, and cuts megabyte outputs', async () => {
    h = mount();
    const s = sessionOf(20_000, (i) => (i === 19_998 ? [{ type: 'text', text: 'x'.repeat(3_000_000) }] : []));
    const started = Date.now();
    h.host.send(snapshot(s));
    const took = Date.now() - started;
    assert.equal(h.$$('.thread-list > *').length, FIRST_PAINT_ENTRIES, 'the first frame builds the newest entries');
    await settle();
    assert.equal(h.$$('.thread-list > *').length, FIRST_PAINT_ENTRIES, 'nothing more before that frame is painted');
    // After each painted frame, FILL_ENTRIES more in front, until the newest page is built.
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      h.frame();
      await settle();
      counts.push(h.$$('.thread-list > *').length);
    }
    assert.equal(FILL_ENTRIES, 100);
    assert.deepEqual(counts, [150, 250, 300, 300, 300], 'then the rest of the newest page, and no more');
    assert.ok(h.$('[data-entry-id="e19999"]'), 'the newest entry is there');
    assert.equal(h.$('[data-entry-id="e100"]'), null);
    assert.equal(h.$('.show-earlier')!.textContent, 'Show earlier entries (19,700 more)');
    // The 3 MB output is shown cut, as plain text.
    const out = h.$('[data-entry-id="e19998"] pre.content-text')!;
    assert.ok(out.textContent!.length < 110_000 && /2,900,000 more characters not shown/.test(out.textContent!), out.textContent!.slice(-120));
    (h.$('.show-earlier') as HTMLElement).click();
    assert.equal(h.$$('.thread-list > *').length, 600);
    // A patch to an entry behind the button builds nothing; it is built as it is when shown.
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'appendText', entryId: 'e101', text: ' (more)' }] });
    h.frame();
    assert.equal(h.$$('.thread-list > *').length, 600);
    console.log(`      (20,000-entry snapshot painted in ${took} ms in jsdom)`);
  });

  it('gets the newest entries only from the extension and asks it for earlier pages, each with what it shows', async () => {
    h = mount();
    const full = sessionOf(1_000);
    const { state, omitted } = windowState(full);
    assert.equal(omitted, 700);
    assert.equal(Object.keys(state.toolCalls).length, 150, 'only the tool calls the newest entries show');
    h.host.send(snapshot(state, { omittedEntries: omitted }));
    for (let i = 0; i < 3; i++) {
      h.frame();
      await settle();
    }
    assert.equal(h.$$('.thread-list > *').length, 300);
    assert.equal(h.$('.show-earlier')!.textContent, 'Show earlier entries (700 more)');
    (h.$('.show-earlier') as HTMLElement).click();
    const [ask] = h.host.ofType('requestEarlier');
    assert.deepEqual(ask, { type: 'requestEarlier', key: 's1', beforeEntryId: 'e700' });
    assert.equal((h.$('.show-earlier') as HTMLButtonElement).disabled, true, 'one request at a time');
    (h.$('.show-earlier') as HTMLElement).click();
    assert.equal(h.host.ofType('requestEarlier').length, 1);
    h.host.send({ type: 'earlierEntries', key: 's1', beforeEntryId: 'e700', page: earlierPage(full, 'e700') });
    assert.equal(h.$$('.thread-list > *').length, 600);
    assert.equal(h.$('[data-entry-id="e400"] .tool-title, [data-entry-id="e400"]')!.textContent!.includes('Read 400'), true, 'a card of the page shows its tool call');
    assert.equal(h.$('.show-earlier')!.textContent, 'Show earlier entries (400 more)');
    // Patches still apply to the newest entries.
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'appendText', entryId: 'e999', text: ' (more)' }] });
    h.frame();
    assert.match(h.$('[data-entry-id="e999"]')!.textContent!, /answer 999 \(more\)/);
    // A page that no longer joins (a snapshot came in between) is dropped and a snapshot asked for.
    (h.$('.show-earlier') as HTMLElement).click();
    h.host.send({ type: 'earlierEntries', key: 's1', beforeEntryId: 'e123' });
    assert.equal(h.host.ofType('requestSnapshot').length, 1);
  });
});

describe('the newest page built after the first paint: the reading position', () => {
  let h: Harness;
  afterEach(() => h?.dispose());
  const ENTRY_PX = 20;
  const VIEW_PX = 200;

  /** jsdom lays nothing out: every entry is ENTRY_PX high, the thread VIEW_PX, scrollTop clamped. */
  function layout(): { el: HTMLElement; scrollUp(px: number): void; fromBottom(): number } {
    const el = h.$('.thread')!;
    const height = () => h.$$('.thread-list > [data-entry-id]').length * ENTRY_PX;
    let top = 0;
    Object.defineProperty(el, 'scrollHeight', { configurable: true, get: height });
    Object.defineProperty(el, 'clientHeight', { configurable: true, get: () => VIEW_PX });
    Object.defineProperty(el, 'scrollTop', { configurable: true, get: () => top, set: (v: number) => void (top = Math.max(0, Math.min(v, height() - VIEW_PX))) });
    return {
      el,
      // The person's wheel: the position moves now, the scroll event comes with the next frame.
      scrollUp: (px) => void (top = Math.max(0, top - px)),
      fromBottom: () => height() - VIEW_PX - top,
    };
  }
  const scrolled = (el: HTMLElement) => el.dispatchEvent(new h.dom.window.Event('scroll'));
  const session = (n: number) => {
    const s = endedState();
    s.entries = Array.from({ length: n }, (_, i) => ({ kind: 'agent' as const, id: `e${i}`, text: `answer ${i}`, attachments: [] }));
    s.toolCalls = {};
    s.permissions = {};
    s.nextEntry = n;
    return s;
  };

  it('a move up made while entries are put in front stays a move up, and the view stays where the person took it', async () => {
    h = mount();
    const v = layout();
    h.host.send(snapshot(session(300)));
    scrolled(v.el);
    assert.equal(v.fromBottom(), 0, 'at the bottom after the first frame');
    // The person scrolls up before the rest of the page is built; a part of it comes in front
    // before the scroll event does.
    v.scrollUp(100);
    h.frame();
    await settle();
    scrolled(v.el);
    assert.equal(h.$$('.thread-list > [data-entry-id]').length, FIRST_PAINT_ENTRIES + FILL_ENTRIES);
    assert.equal(v.fromBottom(), 100, 'what was put in front did not move the view');
    for (let i = 0; i < 3; i++) {
      h.frame();
      await settle();
      scrolled(v.el);
    }
    assert.equal(h.$$('.thread-list > [data-entry-id]').length, 300);
    // More output: a thread that follows the bottom would jump there now.
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'appendText', entryId: 'e299', text: ' (more)' }] });
    h.frame();
    assert.equal(v.fromBottom(), 100, 'the view is still where the person took it, not back at the bottom');
  });

  it('a snapshot that comes while the page is still being built keeps the reading position from the bottom', async () => {
    h = mount();
    const v = layout();
    h.host.send(snapshot(session(300)));
    scrolled(v.el);
    v.scrollUp(60);
    scrolled(v.el);
    // The next window of the same session (a replay's) arrives before the fill has finished.
    h.host.send(snapshot(session(300)));
    assert.equal(h.$$('.thread-list > [data-entry-id]').length, 300, 'read further up: the whole page at once');
    assert.equal(v.fromBottom(), 60);
  });
});
