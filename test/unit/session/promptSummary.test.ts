/**
 * A prompt as one readable line (the Changes view's turns, the session picker): JSON scripts in
 * words, multi-line and long prompts folded and cut, control characters gone.
 */
import assert from 'node:assert/strict';
import { promptSummary, sessionLabel, sessionTitle } from '../../../src/acp/session/promptSummary';
import { createSessionState } from '../../../src/acp/session/types';
import { reduce } from '../../../src/acp/session/reducer';

describe('promptSummary', () => {
  it('names a JSON script by what it holds, never with brackets or quotes', () => {
    const cases: [string, string][] = [
      ['{"edits": [{"path": "a.txt", "content": "x\\ny"}, {"path": "b.txt", "delete": true}]}', 'edits a.txt, b.txt'],
      ['{"commands":[{"command":"npm test","ask":true}]}', 'commands npm test'],
      ['{"files":["a.txt","b.txt"],"lines":3}', 'files a.txt, b.txt · lines 3'],
      ['{"server":"editor","calls":[{"tool":"read_file","args":{"path":"x"}}]}', 'server editor · calls read_file'],
      ['[1, 2, 3]', '1, 2, 3'],
      ['{"edits": [{"path": "a.txt"', 'edits: path: a.txt'],
      ['{}', 'a script'],
    ];
    for (const [prompt, want] of cases) {
      const got = promptSummary(prompt);
      assert.equal(got, want, prompt);
      assert.doesNotMatch(got, /[{}[\]"]/);
    }
  });

  it('folds lines and fences, and cuts a long prompt at a word with an ellipsis', () => {
    assert.equal(promptSummary('Fix the bug\n\n```ts\nconst a = 1;\n```\nthanks'), 'Fix the bug const a = 1; thanks');
    const long = 'Please refactor the authentication module so that every token is checked twice before use';
    const s = promptSummary(long);
    assert.ok(s.length <= 60, s);
    assert.match(s, /^Please refactor the authentication module so that every…$/);
    assert.equal(promptSummary('a\u0007b\u202Ec\td'), 'a b c d');
    assert.equal(promptSummary('   '), '');
  });

  it('gives a session the agent\'s title, else its first prompt in words', () => {
    const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
    assert.equal(sessionTitle(s), 'New session');
    reduce(s, { type: 'ready', sessionId: 's1' });
    reduce(s, { type: 'promptSent', text: '{"edits":[{"path":"notes.md","content":"hi"}]}' });
    assert.equal(sessionTitle(s), 'edits notes.md');
    assert.equal(sessionTitle({ ...s, title: 'Fix\nlogin' }), 'Fix login');
  });

  it('names two runs of one agent on one prompt apart by their worktree', () => {
    const run = (branch: string) => {
      const s = createSessionState({ key: branch, agentId: 'demo', agentName: 'Offline demo agent', cwd: '/w' });
      reduce(s, { type: 'ready', sessionId: branch });
      reduce(s, { type: 'promptSent', text: 'add a farewell to src/greet.ts' });
      return { ...s, worktree: { id: branch, dir: `/t/${branch}`, branch, repo: '/w' } };
    };
    const [a, b] = [sessionLabel(run('switchboard/a1')), sessionLabel(run('switchboard/b2'))];
    assert.equal(a, 'Offline demo agent · add a farewell to src/greet.ts (worktree switchboard/a1)');
    assert.notEqual(a, b);
  });
});
