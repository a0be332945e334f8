/**
 * A session in a worktree of its own runs commands only inside it (review of issue 20, F1): a
 * terminal whose folder is the main folder, `/` or anywhere else is refused before any allow rule or
 * grant is consulted, because a grant made in the main folder names the main folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentFingerprint } from '../../../src/policy/grants';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import type { PolicyDefaults } from '../../../src/policy/gate';
import type { Intent } from '../../../src/policy/intent';

describe('a worktree session runs commands only in its worktree (review F1)', () => {
  let tmp: string;
  let main: string;
  let tree: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-wtc-')));
    main = path.join(tmp, 'main');
    tree = path.join(tmp, 'storage', 'worktrees', 'main-1234', 'src');
    fs.mkdirSync(main, { recursive: true });
    fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
    fs.symlinkSync(main, path.join(tree, 'link-to-main'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('refuses a folder outside the worktree even where an allow rule or a grant names the command; allows inside', async () => {
    const rules: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false, allow: [{ kind: 'command', commandExact: 'npm test' }] };
    const policy = new EffectPolicy({ defaults: () => rules, roots: () => [main], readCurrent: async () => null });
    const fp = agentFingerprint({ command: '/bin/agent', args: [], env: {} });
    // A grant the person made in an ordinary session of the main folder.
    const mainActor = { sessionId: 'm', agentId: 'a', agentFingerprint: fp, cwd: main };
    const intent: Intent = { sessionId: 'm', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [{ type: 'command', command: 'make deploy', args: [], cwd: main, envNames: [] }] };
    policy.recordDecision(mainActor, intent, { kind: 'allow_once', optionId: 'o' }, { kind: 'person', grant: 'workspace' });
    const inTree = { sessionId: 'w', agentId: 'a', agentFingerprint: fp, cwd: tree, roots: [tree] };
    for (const cwd of [main, '/', tmp, path.join(tree, 'link-to-main'), path.join(tree, '..')]) {
      for (const command of ['npm test', 'make deploy']) {
        const d = await policy.checkCommand(inTree, { sessionId: 'x', command, cwd });
        assert.equal(d.allowed, false, `${command} in ${cwd}`);
        assert.equal(d.allowed ? '' : d.reason, 'denied_by_policy');
        assert.equal(policy.holdable(d), false, 'never put to the person as a held effect either');
      }
    }
    assert.equal((await policy.checkCommand(inTree, { sessionId: 'x', command: 'npm test' })).allowed, true, 'the rule, in the worktree');
    assert.equal((await policy.checkCommand(inTree, { sessionId: 'x', command: 'npm test', cwd: path.join(tree, 'sub') })).allowed, true, 'a folder inside it');
    assert.equal((await policy.checkCommand(mainActor, { sessionId: 'x', command: 'make deploy', cwd: main })).allowed, true, 'the main folder\'s own session keeps its grant');
  });
});
