import assert from 'node:assert/strict';
import type { SessionPatch } from '../../../src/acp/session/types';
import { AGENTS, endedState, richState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

function patches(h: Harness, list: SessionPatch[], key = 's1'): void {
  const rev = h.app.currentState!.rev + list.length;
  h.host.send({ type: 'patches', key, rev, patches: list });
}

describe('session webview app', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  describe('handshake and snapshot', () => {
    it('posts ready on start and renders every entry kind of the snapshot', () => {
      h = mount();
      assert.deepEqual(h.host.posted, [{ type: 'ready' }]);
      h.host.send(snapshot(endedState()));

      assert.equal(h.$('[data-entry-id="e0"] .user-text')?.textContent, 'Add an optional "excited" flag to greet() and run the tests.');
      // Agent markdown became HTML.
      assert.ok(h.$('[data-entry-id="e2"] .md strong'), 'agent markdown rendered');
      assert.ok(h.$('[data-entry-id="e2"] .md pre code'), 'code block rendered');
      // Thought: collapsed collapsible titled "Thinking".
      const thought = h.$('[data-entry-id="e1"] vscode-collapsible')!;
      assert.equal(thought.getAttribute('heading'), 'Thinking');
      assert.equal(thought.hasAttribute('open'), false);
      // Tool cards: kind icons, diff preview, terminal output.
      assert.ok(h.$('[data-entry-id="e3"] .codicon-eye'));
      assert.ok(h.$('[data-entry-id="e4"] .codicon-edit'));
      assert.ok(h.$$('[data-entry-id="e4"] .dl.add').length > 0, 'diff lines shown');
      assert.equal(h.$('[data-entry-id="e4"] .stat-add')?.textContent, '+3');
      assert.match(h.$('[data-entry-id="e5"] .term-out')?.textContent ?? '', /Done in 1\.2s/);
      assert.match(h.$('[data-entry-id="e5"] .term-status')?.textContent ?? '', /exit 0/);
      // Placeholder tool call.
      assert.match(h.$('[data-entry-id="e7"] .placeholder-note')?.textContent ?? '', /not announced by the agent/);
      // Notices: the error one shows the launch details.
      assert.match(h.$('[data-entry-id="e9"] .kv')?.textContent ?? '', /claude-code-acp --verbose.*\/usr\/local\/bin:\/usr\/bin.*127/s);
      assert.match(h.$('[data-entry-id="e9"] pre.stderr')?.textContent ?? '', /fatal: not logged in/);
      // turn_end refusal is explained.
      assert.match(h.$('[data-entry-id="e8"]')?.textContent ?? '', /the agent refused; this prompt is dropped from its context/);
      // Plan pinned with status and priority.
      assert.equal(h.$$('.plan-entry').length, 4);
      assert.ok(h.$('.plan-entry.plan-in_progress .codicon-loading'));
      assert.equal(h.$('.plan-entry.prio-high .prio')?.textContent, 'high');
      // Thread is a polite live region.
      assert.equal(h.$('.thread-list')?.getAttribute('aria-live'), 'polite');
    });

    it('labels agents: the demo as offline, unavailable ones with their reason; choosing one opens its fix, not a session', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const opts = h.$$('.agent-select vscode-option');
      assert.deepEqual(opts.map((o) => o.textContent), ['Claude Code', 'Gemini CLI (unavailable)', 'Demo agent (offline demo)']);
      assert.equal(opts[1].getAttribute('title'), AGENTS[1].reason);
      // Before, an unavailable row was disabled: nothing led from it to the fix.
      const select = h.$('.agent-select') as HTMLElement & { value?: string };
      select.value = AGENTS[1].id;
      select.dispatchEvent(new h.dom.window.Event('change'));
      assert.deepEqual(h.host.ofType('showUnavailableAgents'), [{ type: 'showUnavailableAgents', agentId: AGENTS[1].id }]);
      h.$('.start-button')!.click();
      assert.deepEqual(h.host.ofType('startSession'), [{ type: 'startSession', agentId: 'claude' }]);
    });

    it('shows an invalid agent entry as malformed, with its problem, never as "not found"; "N agents unavailable" opens the list', () => {
      h = mount();
      const bad = { id: 'my-agent', name: 'My agent', available: false, invalid: true, unavailable: 'malformed' as const, problem: 'args must be a list of strings, like ["--acp"]', reason: 'My agent: args must be a list of strings, like ["--acp"]' };
      h.host.send({ ...snapshot(null), agents: [bad, { id: 'gemini', name: 'Gemini CLI', available: false, unavailable: 'not-found', reason: '"gemini" was not found on your PATH.' }] });
      const opts = h.$$('.agent-select vscode-option');
      assert.deepEqual(opts.map((o) => o.textContent), ['My agent (malformed entry): args must be a list of strings, like ["--acp"]', 'Gemini CLI (not found)']);
      const hint = h.$('.agent-hint')!;
      assert.match(hint.textContent ?? '', /2 agents unavailable/);
      assert.equal(hint.getAttribute('title'), 'My agent (malformed entry): args must be a list of strings, like ["--acp"]\nGemini CLI (not found): "gemini" was not found on your PATH.');
      hint.click();
      assert.deepEqual(h.host.ofType('showUnavailableAgents'), [{ type: 'showUnavailableAgents' }]);
    });

    it('shows a session picker when there are several sessions', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const select = h.$('.session-select') as HTMLElement & { value?: string };
      assert.ok(select);
      select.value = 's2';
      select.dispatchEvent(new h.dom.window.Event('change'));
      assert.deepEqual(h.host.ofType('selectSession'), [{ type: 'selectSession', key: 's2' }]);
    });

    it('shows an explanation and a start button without a session', () => {
      h = mount();
      h.host.send(snapshot(null, { workspaceTrusted: false }));
      assert.equal(h.$('.empty')?.hidden, false);
      assert.match(h.$('.empty')?.textContent ?? '', /Restricted Mode/);
      h.$('.empty-start')!.click();
      assert.deepEqual(h.host.ofType('startSession'), [{ type: 'startSession', agentId: 'claude' }]);
    });

    it('paints the saved state at once after a reload, before the extension answers', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const host = h.host;
      h.dispose();
      h = mount(host);
      assert.ok(h.$('[data-entry-id="e2"] .md strong'), 'restored from setState');
      assert.deepEqual(host.posted.at(-1), { type: 'ready' });
    });
  });

  describe('permissions', () => {
    it('shows Allow, Reject and "Allow more…" in the waiting card; the broader choices open under "Allow more…"; posts the chosen one', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      assert.ok(card.classList.contains('waiting'));
      // The merged detail is in the card: the command to be run.
      assert.match(card.querySelector('pre.command')?.textContent ?? '', /npm test -- --reporter dot/);
      // On the card: the narrowest allow and reject, in our words, and one way to the rest.
      const main = Array.from(card.querySelectorAll<HTMLElement>('.perm-main vscode-button'));
      assert.deepEqual(main.map((b) => b.textContent), ['Allow', 'Reject', 'Allow more…']);
      assert.ok(!main[0].hasAttribute('secondary'));
      assert.ok(main[1].hasAttribute('secondary') && main[2].hasAttribute('secondary'));
      const more = card.querySelector<HTMLElement>('.perm-more')!;
      const toggle = card.querySelector<HTMLElement>('.perm-more-toggle')!;
      assert.ok(more.hidden, 'the broader choices are closed at first');
      assert.equal(toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(toggle.getAttribute('aria-controls'), more.id);
      // Every choice of before is there, under "Allow more…": the agent's "always" and our grants.
      const agents = Array.from(more.querySelectorAll<HTMLElement>('.perm-option:not(.perm-grant)'));
      assert.deepEqual(agents.map((b) => b.textContent), ['Allow as the agent offers “Always allow npm test”']);
      const grants = Array.from(more.querySelectorAll<HTMLElement>('.perm-grant'));
      assert.deepEqual(grants.map((b) => b.dataset.grant), ['session', 'workspace', 'always']);
      toggle.click();
      assert.ok(!more.hidden && toggle.getAttribute('aria-expanded') === 'true', '"Allow more…" opens them');
      // A rebuild of the card (any update of its call) keeps them open.
      patches(h, [{ op: 'toolCall', toolCall: { ...richState().toolCalls['tc-test'], title: 'Run the tests again' } }]);
      assert.equal(h.$('[data-entry-id="e7"] .perm-more')?.hidden, false);
      // Escape in them closes them.
      h.$('[data-entry-id="e7"] .perm-more')!.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      assert.equal(h.$('[data-entry-id="e7"] .perm-more')?.hidden, true);
      assert.equal(h.$('[data-entry-id="e7"] .perm-more-toggle')?.getAttribute('aria-expanded'), 'false');

      const options = h.$$('[data-entry-id="e7"] .perm-option');
      options.find((b) => b.dataset.kind === 'allow_always')!.click();
      options.find((b) => b.dataset.kind === 'allow_once')!.click(); // a second click before the extension answers is ignored
      assert.deepEqual(h.host.ofType('answerPermission'), [{ type: 'answerPermission', key: 's1', permissionId: 'p1', optionId: 'allow-always' }]);
      assert.ok(options.every((b) => b.hasAttribute('disabled')), 'every answer, the grants included, waits for the extension');
    });

    it('shows the intent hash on hover, and written out under "Allow more…"', () => {
      h = mount();
      const s = richState();
      const hash = 'ab'.repeat(32);
      s.permissions.p1 = { ...s.permissions.p1, intentHash: hash };
      h.host.send(snapshot(s));
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      assert.match(card.querySelector('.tool-head .tool-status')?.getAttribute('title') ?? '', new RegExp(`Intent SHA-256 ${hash}`));
      assert.match(card.querySelector('.perm-main .perm-option[data-kind="allow_once"]')?.getAttribute('title') ?? '', new RegExp(`Intent SHA-256 ${hash}`));
      assert.equal(card.querySelector('.perm-more .intent-hash')?.textContent, hash);
      assert.ok(card.querySelector<HTMLElement>('.perm-more')!.hidden);
    });

    it('says what the agent\'s "always" would grant beside it, under "Allow more…", not among the warnings', () => {
      h = mount();
      const s = richState();
      const note = '"Always allow" lets the agent write any workspace file from now on, without asking. Writing files amounts to running commands: your tools run many of the files they read.';
      s.permissions.p1 = { ...s.permissions.p1, undeclared: ['The agent did not show what it will write to a.ts.'], grantNotes: [note] };
      h.host.send(snapshot(s));
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      assert.equal(card.querySelector('.perm-warnings')?.textContent, 'The agent did not show what it will write to a.ts.');
      const shown = card.querySelector('.perm-more .perm-option[data-kind="allow_always"]')!.parentElement!.querySelector('.perm-grant-note')!;
      // One line: its first sentence; the rest behind a disclosure on that line, and in its tooltip.
      assert.equal(shown.querySelector('summary')?.textContent, '"Always allow" lets the agent write any workspace file from now on, without asking.');
      assert.match(shown.querySelector('.perm-line-rest')?.textContent ?? '', /^Writing files amounts to running commands/);
      assert.equal(shown.getAttribute('title'), note);
    });

    it('labels buttons by the option\'s kind, whatever the agent names them; the agent\'s name is secondary plain text', () => {
      h = mount();
      const s = richState();
      s.permissions.p1 = {
        ...s.permissions.p1,
        options: [
          { optionId: 'sneaky', name: 'Reject', kind: 'allow_always' },
          { optionId: 'no', name: '<b>Allow once</b>', kind: 'reject_once' },
          { optionId: 'never', name: 'Allow', kind: 'reject_always' },
          { optionId: 'yes', name: 'Allow once', kind: 'allow_once' },
        ],
      };
      h.host.send(snapshot(s));
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      // On the card, the narrowest allow and reject; under "Allow more…", the rest in the order of their reach (issue 17).
      const main = Array.from(card.querySelectorAll<HTMLElement>('.perm-main .perm-option'));
      assert.deepEqual(main.map((b) => b.childNodes[0].textContent), ['Allow', 'Reject']);
      assert.deepEqual(main.map((b) => b.dataset.optionId), ['yes', 'no']);
      assert.deepEqual(main.map((b) => /Key: (Ctrl|Cmd)\+Shift\+Alt\+([YD])/.exec(b.getAttribute('title') ?? '')?.[2]), ['Y', 'D'], 'Allow and Reject name their keys on hover');
      const more = Array.from(card.querySelectorAll<HTMLElement>('.perm-more .perm-option:not(.perm-grant)'));
      assert.deepEqual(more.map((b) => b.childNodes[0].textContent), ['Allow as the agent offers', 'Reject always']);
      const buttons = [...main, ...more];
      assert.deepEqual(buttons.map((b) => b.querySelector('.perm-agent-name')?.textContent ?? null), [null, ' “<b>Allow once</b>”', ' “Reject”', ' “Allow”'], 'the agent\'s name when it says more than our label or the option\'s kind');
      assert.equal(card.querySelector('.perm-agent-name b'), null, 'the agent\'s name is text, not markup');
      // Only allow-once looks like the default; the agent's "always" and our "every workspace" do not.
      assert.deepEqual(buttons.map((b) => b.hasAttribute('secondary')), [false, true, true, true]);
      const grants = Array.from(card.querySelectorAll<HTMLElement>('.perm-grant'));
      assert.deepEqual(grants.map((b) => b.textContent), ['Allow for this session', 'Allow in this workspace', 'Always allow everywhere']);
      assert.ok(grants.every((b) => b.hasAttribute('secondary')));
      assert.match(grants[2].getAttribute('title') ?? '', /every workspace/);
      assert.match(more[0].getAttribute('aria-label') ?? '', /^Allow as the agent offers “Reject”: /, 'the accessible name begins with the visible text (WCAG 2.5.3)');
    });

    it('a request that did not show its command can only be allowed once, and the card says so', () => {
      h = mount();
      const s = richState();
      const onceOnly = 'The agent did not show the command, so this can only be allowed once.';
      s.permissions.p1 = { ...s.permissions.p1, onceOnly };
      h.host.send(snapshot(s));
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      assert.equal(card.querySelector('.perm-once-only')?.textContent, onceOnly);
      assert.deepEqual(Array.from(card.querySelectorAll<HTMLElement>('.perm-option')).map((b) => b.dataset.kind), ['allow_once', 'reject_once'], 'no "always", no grants');
      assert.equal(card.querySelector('.perm-more-toggle'), null, 'nothing more to open');
      // When the agent offers only "always", that button says what it does: allow once.
      s.permissions.p1 = { ...s.permissions.p1, options: s.permissions.p1.options.filter((o) => o.kind !== 'allow_once') };
      h.host.send(snapshot(s));
      const only = Array.from(h.$$('[data-entry-id="e7"] .perm-option'));
      assert.deepEqual(only.map((b) => b.childNodes[0].textContent), ['Allow', 'Reject']);
      assert.equal(only[0].dataset.kind, 'allow_always');
      assert.ok(!only[0].hasAttribute('secondary'));
      assert.equal(h.$$('[data-entry-id="e7"] .perm-grant').length, 0);
    });

    it('an "always" answer that was taken as once says "Allowed once"', () => {
      h = mount();
      const s = richState();
      s.permissions.p1 = { ...s.permissions.p1, state: 'selected', optionId: 'allow-always', answeredBy: 'api', asOnce: true };
      h.host.send(snapshot(s));
      assert.match(h.$('[data-entry-id="e7"] .permission.answered')?.textContent ?? '', /^Allowed once \(the agent's option “Always allow npm test”\) via the API/);
    });

    it('"For this session" answers with the agent\'s allow option and asks for a session grant', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      h.$('[data-entry-id="e7"] .perm-grant[data-grant="session"]')!.click();
      assert.deepEqual(h.host.ofType('answerPermission'), [{ type: 'answerPermission', key: 's1', permissionId: 'p1', optionId: 'allow-once', grant: 'session' }]);
    });

    it('shows how an answered permission ended and who answered', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      assert.match(h.$('[data-entry-id="e4"] .permission.answered')?.textContent ?? '', /Allowed once.*by you/);
      patches(h, [
        { op: 'permission', permission: { ...richState().permissions.p1, state: 'cancelled', answeredBy: 'cancel' } },
        { op: 'toolCall', toolCall: { ...richState().toolCalls['tc-test'], status: 'cancelled' } },
      ]);
      h.frame();
      const card = h.$('[data-entry-id="e7"] .tool-card')!;
      assert.ok(!card.classList.contains('waiting'));
      assert.match(card.querySelector('.permission')?.textContent ?? '', /Cancelled.*turn was cancelled/);
    });
  });

  describe('patches', () => {
    it('appends streamed text to one entry without recreating other entries, once per frame', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const before = new Map(['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'].map((id) => [id, h.app.entryElement(id)!]));
      const otherBodies = h.$$('.md').filter((el) => !el.closest('[data-entry-id="e2"]'));
      const otherHtml = otherBodies.map((el) => el.innerHTML);

      for (let i = 0; i < 1000; i++) patches(h, [{ op: 'appendText', entryId: 'e2', text: i === 999 ? ' **the end**' : '.' }]);
      assert.equal(h.frames.length, 1, 'a thousand chunks ask for one frame');
      assert.doesNotMatch(h.$('[data-entry-id="e2"]')!.textContent!, /the end/, 'DOM waits for the frame');
      h.frame();

      assert.equal(h.$$('[data-entry-id="e2"] .md strong').at(-1)?.textContent, 'the end');
      for (const [id, el] of before) assert.equal(h.app.entryElement(id), el, `entry ${id} kept its node`);
      for (const [id, el] of before) assert.ok(el.isConnected, `entry ${id} still in the document`);
      otherBodies.forEach((el, i) => {
        assert.ok(el.isConnected);
        assert.equal(el.innerHTML, otherHtml[i]);
      });
      assert.equal(h.app.currentState!.rev, 1040);
    });

    it('shows a message from its appended chunks, and in full once anything else replaced it between frames', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const e2 = () => h.app.currentState!.entries.find((e) => e.id === 'e2') as { text: string };
      const shown = () => h.$('[data-entry-id="e2"] .md')!.textContent!.replace(/\s+/g, ' ').trim();
      for (let i = 0; i < 30; i++) patches(h, [{ op: 'appendText', entryId: 'e2', text: `\n\nchunk ${i}` }]);
      h.frame();
      assert.match(shown(), /chunk 29$/);
      // Replaced, then appended to, within one frame: the new text is shown, not the old one with the
      // appends (the new text has the old one's length, so only the thread can tell them apart).
      const answer = 'A new answer.'.padEnd(e2().text.length, '!');
      patches(h, [{ op: 'entry', entry: { ...e2(), text: answer } as never }, { op: 'appendText', entryId: 'e2', text: ' More.' }]);
      h.frame();
      assert.equal(shown(), `${answer} More.`);
      patches(h, [{ op: 'appendText', entryId: 'e2', text: ' And more.' }]);
      h.frame();
      assert.equal(shown(), `${answer} More. And more.`);
    });

    it('re-renders only the card of an upserted tool call', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const readCard = h.$('[data-entry-id="e3"] .tool-card');
      const execCard = h.$('[data-entry-id="e5"] .tool-card');
      const editCard = h.$('[data-entry-id="e4"] .tool-card');
      patches(h, [{ op: 'toolCall', toolCall: { ...richState().toolCalls['tc-read'], status: 'failed', title: 'Read failed' } }]);
      h.frame();
      assert.notEqual(h.$('[data-entry-id="e3"] .tool-card'), readCard, 'the upserted card was rebuilt');
      assert.match(h.$('[data-entry-id="e3"] .tool-title')?.textContent ?? '', /Read failed/);
      assert.equal(h.$('[data-entry-id="e4"] .tool-card'), editCard);
      assert.equal(h.$('[data-entry-id="e5"] .tool-card'), execCard);
    });

    it('updates a terminal block in place and appends new entries at the end', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const execCard = h.$('[data-entry-id="e5"] .tool-card');
      const t1 = richState().terminals.t1;
      patches(h, [
        { op: 'terminal', terminal: { ...t1, output: t1.output + 'extra line\n' } },
        { op: 'entry', entry: { kind: 'agent', id: 'e8', text: 'All *green*.', attachments: [] } },
        { op: 'meta', meta: { status: 'ready' } },
      ]);
      h.frame();
      assert.equal(h.$('[data-entry-id="e5"] .tool-card'), execCard);
      assert.match(h.$('[data-entry-id="e5"] .term-out')?.textContent ?? '', /extra line/);
      assert.equal(h.$('.thread-list')!.lastElementChild?.getAttribute('data-entry-id'), 'e8');
      assert.ok(h.$('[data-entry-id="e8"] em'));
      assert.ok(!h.$('.send-button')!.hasAttribute('disabled'), 'ready enables Send');
      assert.ok(h.$('.stop-button')!.hasAttribute('disabled'));
    });

    it('asks for a snapshot once on a rev gap and ignores patches until it arrives', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const text = h.app.currentState!.entries[2];
      h.host.send({ type: 'patches', key: 's1', rev: 45, patches: [{ op: 'appendText', entryId: 'e2', text: 'lost' }] });
      h.host.send({ type: 'patches', key: 's1', rev: 46, patches: [{ op: 'appendText', entryId: 'e2', text: 'lost' }] });
      assert.deepEqual(h.host.ofType('requestSnapshot'), [{ type: 'requestSnapshot' }]);
      assert.equal(h.app.currentState!.rev, 40);
      assert.deepEqual(h.app.currentState!.entries[2], text);
      // The snapshot resumes the stream.
      const fresh = richState();
      fresh.rev = 46;
      h.host.send(snapshot(fresh));
      patches(h, [{ op: 'appendText', entryId: 'e2', text: ' resumed' }]);
      h.frame();
      assert.match(h.$('[data-entry-id="e2"]')!.textContent!, /resumed/);
    });

    it('ignores patches for another session', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      h.host.send({ type: 'patches', key: 's2', rev: 1, patches: [{ op: 'meta', meta: { status: 'ready' } }] });
      assert.equal(h.app.currentState!.status, 'prompting');
      assert.deepEqual(h.host.ofType('requestSnapshot'), []);
    });
  });

  describe('prompt box and links', () => {
    it('sends on Enter, not on Shift+Enter; queues while a turn runs; nothing while it stops', () => {
      h = mount();
      h.host.send(snapshot(endedState()));
      const input = h.$('.prompt-input') as HTMLElement & { value?: string };
      const key = (init: KeyboardEventInit) => input.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init }));
      input.value = 'line one';
      key({ key: 'Enter', shiftKey: true });
      assert.deepEqual(h.host.ofType('prompt'), []);
      key({ key: 'Enter' });
      assert.deepEqual(h.host.ofType('prompt'), [{ type: 'prompt', key: 's1', text: 'line one' }]);
      assert.equal(input.value, '');

      patches(h, [{ op: 'meta', meta: { status: 'prompting' } }]);
      h.frame();
      assert.equal(h.$('.send-button')!.textContent, 'Queue');
      input.value = 'next one';
      key({ key: 'Enter' });
      assert.deepEqual(h.host.ofType('prompt').at(-1), { type: 'prompt', key: 's1', text: 'next one' }, 'queued by the host');
      patches(h, [{ op: 'meta', meta: { queued: ['next one'] } }]);
      h.frame();
      assert.match(h.$('.queued')!.textContent ?? '', /^1 queued — sent when the turn ends: next one$/);
      h.$('.stop-button')!.click();
      assert.deepEqual(h.host.ofType('cancel'), [{ type: 'cancel', key: 's1' }]);
      patches(h, [{ op: 'meta', meta: { status: 'cancelling', queued: [] } }]);
      h.frame();
      input.value = 'too early';
      key({ key: 'Enter' });
      assert.equal(h.host.ofType('prompt').length, 2, 'nothing is sent while the turn stops');
      assert.ok(h.$('.send-button')!.hasAttribute('disabled'));
      assert.ok(h.$('.queued')!.hidden);
    });

    it('a second Enter before the host answers keeps the text instead of losing it', () => {
      h = mount();
      h.host.send(snapshot(endedState()));
      const input = h.$('.prompt-input') as HTMLElement & { value?: string };
      const enter = () => input.dispatchEvent(new h.dom.window.KeyboardEvent('keydown', { bubbles: true, cancelable: true, key: 'Enter' }));
      input.value = 'one';
      enter();
      input.value = 'two';
      enter();
      assert.deepEqual(h.host.ofType('prompt').map((m) => m.text), ['one']);
      assert.equal(input.value, 'two', 'the second prompt stays in the box');
      assert.ok(h.$('.send-button')!.hasAttribute('disabled'));
    });

    it('posts openLocation and showTerminal from cards', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const loc = h.$('[data-entry-id="e3"] .location')!;
      assert.equal(loc.textContent, 'greet.ts:1');
      loc.click();
      h.$('[data-entry-id="e5"] .show-terminal')!.click();
      assert.deepEqual(h.host.ofType('openLocation'), [{ type: 'openLocation', path: '/work/demo/src/greet.ts', line: 1 }]);
      assert.deepEqual(h.host.ofType('showTerminal'), [{ type: 'showTerminal', key: 's1', terminalId: 't1' }]);
    });

    it('link clicks in agent markdown open nothing', () => {
      h = mount();
      h.host.send(snapshot(richState()));
      const a = h.$('[data-entry-id="e2"] a')!;
      assert.equal(a.getAttribute('title'), 'https://example.com/docs');
      assert.equal(a.hasAttribute('href'), false);
      const ev = new h.dom.window.MouseEvent('click', { bubbles: true, cancelable: true });
      a.dispatchEvent(ev);
      assert.equal(ev.defaultPrevented, true);
      assert.deepEqual(h.host.posted.filter((m) => m.type !== 'ready'), []);
    });
  });

  it('applies a batch the extension merged (fromRev) and shows a cut tool text with its full length', () => {
    h = mount();
    h.host.send(snapshot(richState()));
    const rev = h.app.currentState!.rev;
    const tc = h.app.currentState!.toolCalls['tc-exec'];
    const text = 'y'.repeat(100_000);
    h.host.send({ type: 'patches', key: 's1', fromRev: rev, rev: rev + 5, patches: [{ op: 'toolCall', toolCall: { ...tc, content: [{ type: 'text', text, totalChars: 2_000_000 }] } }] });
    h.frame();
    assert.equal(h.app.currentState!.rev, rev + 5, 'the state follows the extension\'s rev');
    assert.equal(h.host.ofType('requestSnapshot').length, 0, 'no gap seen');
    const shown = h.doc.querySelector('[data-tool-call-id="tc-exec"] .content-text')?.textContent ?? '';
    assert.match(shown, /1,900,000 more characters not shown/);
    // A later batch that does not start where the page stands is a gap: the page asks for a snapshot.
    h.host.send({ type: 'patches', key: 's1', fromRev: rev + 4, rev: rev + 6, patches: [{ op: 'meta', meta: { title: 'x' } }] });
    assert.equal(h.host.ofType('requestSnapshot').length, 1);
  });

  it('keeps a growing tool output\'s block in place while what it shows stays, and rebuilds it when that changes', () => {
    h = mount();
    h.host.send(snapshot(richState()));
    const tc = h.app.currentState!.toolCalls['tc-exec'];
    const head = 'z'.repeat(100_000);
    const card = () => h.doc.querySelector('[data-tool-call-id="tc-exec"] .tool-card')!;
    const block = () => h.doc.querySelector('[data-tool-call-id="tc-exec"] .content-text')!;
    const send = (toolCall: typeof tc) => {
      patches(h, [{ op: 'toolCall', toolCall }]);
      h.frame();
    };
    send({ ...tc, content: [{ type: 'text', text: head + 'a'.repeat(500) }] });
    const first = block();
    const firstCard = card();
    assert.equal(first.querySelector('.not-shown')!.textContent, '… 500 more characters not shown (Export Session has all of it)');
    // The tool re-sends its output, longer, and finishes: the same block and card, the new count and status.
    send({ ...tc, status: 'completed', content: [{ type: 'text', text: head + 'a'.repeat(90_000) }] });
    assert.equal(block(), first, 'the block is the one shown before');
    assert.equal(card(), firstCard);
    assert.equal(first.textContent, `${head}… 90,000 more characters not shown (Export Session has all of it)`);
    assert.match(card().className, /status-completed/);
    assert.equal(h.doc.querySelectorAll('[data-tool-call-id="tc-exec"] .content-text').length, 1);
    // What it shows changed (its start, or a second item): built again, as it now is.
    send({ ...tc, content: [{ type: 'text', text: 'y' + head.slice(1) + 'a'.repeat(10) }] });
    assert.notEqual(block(), first);
    assert.match(block().textContent!, /^yz+… 10 more characters not shown/);
    const second = block();
    send({ ...tc, content: [{ type: 'text', text: 'y' + head.slice(1) + 'a'.repeat(20) }, { type: 'text', text: 'done' }] });
    assert.notEqual(block(), second);
    assert.equal(h.doc.querySelectorAll('[data-tool-call-id="tc-exec"] .content-text').length, 2);
    // A short text is built again whenever it changes; the card still shows what the state holds.
    send({ ...tc, content: [{ type: 'text', text: 'short' }] });
    assert.equal(block().textContent!.trim(), 'short');
    send({ ...tc, content: [{ type: 'text', text: 'shorter' }] });
    assert.equal(block().textContent!.trim(), 'shorter');
  });
});
