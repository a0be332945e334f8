/**
 * Issue 17, item 4: plan entries stop "running" when the turn ends. The agent's declared status is
 * kept; entries it left `in_progress` are marked stopped (how the turn ended), live and when a
 * journal is replayed after a reload, so no view shows a spinner for work nobody does.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { sessionToMarkdown } from '../../../src/acp/session/export';
import { SessionJournal } from '../../../src/acp/session/journal';
import { applyPatches } from '../../../src/acp/session/patch';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState, type PlanEntryView, type SessionState } from '../../../src/acp/session/types';

const PLAN: SessionUpdate = {
  sessionUpdate: 'plan',
  entries: [
    { content: 'Read the code', priority: 'high', status: 'completed' },
    { content: 'Edit a.ts', priority: 'medium', status: 'in_progress' },
    { content: 'Run tests', priority: 'low', status: 'pending' },
  ],
};

/** A session in the middle of a turn whose plan has one entry in progress. */
function midTurn(): { state: SessionState; actions: SessionAction[] } {
  const state = createSessionState({ key: 's1', agentId: 'a', agentName: 'Agent', cwd: '/w' });
  const actions: SessionAction[] = [
    { type: 'ready', sessionId: 'sid' },
    { type: 'promptSent', text: 'fix it' },
    { type: 'update', update: PLAN },
  ];
  for (const a of actions) reduce(state, a);
  return { state, actions };
}

/** Entries still shown as running: declared in progress and not stopped. */
const running = (plan: PlanEntryView[]) => plan.filter((e) => e.status === 'in_progress' && !e.stopped).map((e) => e.content);

describe('plan entries when the turn ends (issue 17)', () => {
  it('while the turn runs, the in-progress entry runs', () => {
    assert.deepEqual(running(midTurn().state.plan), ['Edit a.ts']);
  });

  const endings: [string, SessionAction, string][] = [
    ['Stop (cancelled)', { type: 'turnEnded', stopReason: 'cancelled' }, 'cancelled'],
    ['the prompt request failed', { type: 'turnFailed', message: 'The turn failed: boom' }, 'failed'],
    ['the agent crashed', { type: 'agentError', error: { message: 'The agent exited (code 1).' } }, 'failed'],
    ['the session was closed', { type: 'closed' }, 'closed'],
    ['the agent ended its turn without finishing the entry', { type: 'turnEnded', stopReason: 'end_turn' }, 'ended'],
    ['max tokens', { type: 'turnEnded', stopReason: 'max_tokens' }, 'ended'],
  ];
  for (const [name, action, how] of endings) {
    it(`${name}: nothing runs, the agent's statuses stay, the entry says how it stopped; a webview copy agrees`, () => {
      const { state } = midTurn();
      const copy = structuredClone(state);
      const patches = reduce(state, action);
      applyPatches(copy, patches);
      for (const s of [state, copy]) {
        assert.deepEqual(running(s.plan), []);
        assert.deepEqual(s.plan.map((e) => e.status), ['completed', 'in_progress', 'pending'], 'the declared statuses are kept');
        assert.deepEqual(s.plan.map((e) => e.stopped), [undefined, how, undefined]);
      }
    });
  }

  it('a later ending keeps the first reason; the agent\'s next plan replaces the marks', () => {
    const { state } = midTurn();
    reduce(state, { type: 'turnEnded', stopReason: 'cancelled' });
    reduce(state, { type: 'closed' });
    assert.equal(state.plan[1].stopped, 'cancelled');
    const s2 = midTurn().state;
    reduce(s2, { type: 'turnEnded', stopReason: 'cancelled' });
    reduce(s2, { type: 'promptSent', text: 'go on' });
    reduce(s2, { type: 'update', update: PLAN });
    assert.deepEqual(running(s2.plan), ['Edit a.ts'], 'a new turn\'s plan runs again');
  });

  it('a plan that arrives when no turn runs (late, or in a loaded session\'s history) does not run', () => {
    const { state } = midTurn();
    reduce(state, { type: 'turnEnded', stopReason: 'end_turn' });
    reduce(state, { type: 'update', update: PLAN });
    assert.deepEqual(running(state.plan), []);
    const loaded = createSessionState({ key: 's2', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    reduce(loaded, { type: 'update', update: PLAN }); // session/load replays the history before answering
    reduce(loaded, { type: 'ready', sessionId: 'sid' });
    assert.deepEqual(running(loaded.plan), []);
    assert.equal(loaded.plan[1].stopped, 'ended');
  });

  it('the export says the entry stopped, not that it is in progress', () => {
    const { state } = midTurn();
    reduce(state, { type: 'turnEnded', stopReason: 'cancelled' });
    const md = sessionToMarkdown(state);
    assert.match(md, /- \[ \] Edit a\.ts \*\(stopped: the turn was cancelled\)\*/);
    assert.ok(!md.includes('(in progress)'));
  });

  describe('journal replay (a transcript restored after a reload)', () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-plan-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const journaled = (tail: SessionAction[]) => {
      const journal = new SessionJournal(path.join(dir, 'journal'));
      const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
      for (const a of [...midTurn().actions, ...tail]) journal.record(id, a);
      journal.flush(true);
      // A new journal object reads the files as the next window does.
      return new SessionJournal(path.join(dir, 'journal')).replay(id, 'k1').state;
    };

    it('a turn that was stopped replays stopped', () => {
      const state = journaled([{ type: 'turnEnded', stopReason: 'cancelled' }]);
      assert.deepEqual(running(state.plan), []);
      assert.equal(state.plan[1].stopped, 'cancelled');
      // Restoring shows it closed (sessionManager.restore): it stays stopped.
      reduce(state, { type: 'closed' });
      assert.deepEqual(running(state.plan), []);
    });

    it('a turn the agent crashed in replays stopped', () => {
      const state = journaled([{ type: 'agentError', error: { message: 'gone' } }]);
      assert.deepEqual(running(state.plan), []);
      assert.equal(state.plan[1].stopped, 'failed');
    });

    it('a window that ended mid-turn replays the turn as cancelled, the plan stopped', () => {
      const state = journaled([]);
      assert.equal(state.status, 'ready');
      assert.deepEqual(running(state.plan), []);
      assert.equal(state.plan[1].stopped, 'cancelled');
    });
  });
});
