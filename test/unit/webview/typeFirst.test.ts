/**
 * The session page before any session (the prompt box starts one) and a terminal the agent ran
 * itself (its output and exit on the card, said to be the agent's).
 */
import assert from 'node:assert/strict';
import { richState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

describe('session webview: type first, and the agent\'s own terminals', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

    it('without a session the prompt box is there: what is typed starts a session with the picked agent and is its first turn', () => {
      h = mount();
      h.host.send(snapshot(null));
      const composer = h.$('.composer')!;
      assert.equal(composer.hidden, false, 'the box shows before any session');
      const input = h.$('.prompt-input') as HTMLElement & { value: string };
      assert.ok(!input.hasAttribute('disabled'));
      assert.match(input.getAttribute('placeholder') ?? '', /Enter starts a session/);
      assert.ok(!h.$('.send-button')!.hasAttribute('disabled'));
      input.value = 'Add a farewell to greet.ts';
      h.$('.send-button')!.click();
      assert.deepEqual(h.host.ofType('startSession'), [{ type: 'startSession', agentId: 'claude', prompt: 'Add a farewell to greet.ts' }]);
      // Sent once: a second Enter while the session starts does not start another.
      input.value = 'again';
      h.$('.send-button')!.click();
      assert.equal(h.host.ofType('startSession').length, 1);
      // Refused (the agent could not start): the text comes back, said why.
      input.value = '';
      h.host.send({ type: 'promptRefused', text: 'Add a farewell to greet.ts', reason: 'the agent needs a login' });
      h.frame();
      assert.equal(input.value, 'Add a farewell to greet.ts');
      assert.match(h.$('.composer-hint')?.textContent ?? '', /Not sent: the agent needs a login/);
    });

    it('without a session, no folder or no agent that can start: no prompt box, the empty state says why', () => {
      h = mount();
      h.host.send(snapshot(null, { hasWorkspace: false }));
      assert.equal(h.$('.composer')!.hidden, true);
      h.dispose();
      h = mount();
      h.host.send(snapshot(null, { agents: [] }));
      assert.equal(h.$('.composer')!.hidden, true);
      assert.equal(h.$('.empty')?.hidden, false);
    });

    it('a terminal the agent ran itself: its command, output and exit, said to be the agent\'s, and no "Show in terminal"', () => {
      h = mount();
      const s = richState();
      s.terminals.t1 = { ...s.terminals.t1, owner: 'agent', output: 'ACP_SHELL_OK\n', exitStatus: { exitCode: 0, signal: null } };
      h.host.send(snapshot(s));
      const term = h.$('[data-entry-id="e5"] .content-terminal')!;
      assert.equal(term.querySelector('.term-cmd')?.textContent, '$ npm run build');
      assert.equal(term.querySelector('.term-out')?.textContent, 'ACP_SHELL_OK\n');
      assert.equal(term.querySelector('.term-status')?.textContent, 'exit 0');
      assert.match(term.querySelector('.term-owner')?.textContent ?? '', /Run by the agent itself, not through the editor/);
      assert.equal(term.querySelector('.show-terminal'), null, 'no terminal of this editor to show');
      // A terminal nobody sent anything of says so in words that are true for a live turn too.
      s.toolCalls['tc-exec'] = { ...s.toolCalls['tc-exec'], content: [{ type: 'terminal', terminalId: 'gone', unavailable: true }] };
      h.host.send(snapshot(s));
      assert.match(h.$('[data-entry-id="e5"] .content-terminal')?.textContent ?? '', /this editor did not run this terminal, and the agent sent none of its output/);
    });
});
