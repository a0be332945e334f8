/**
 * Workspace Trust: in an untrusted (restricted) workspace, no agent is launched, and agent
 * definitions and the policy come only from user settings. Runs only in the second, untrusted
 * run of scripts/test-all.sh (SWITCHBOARD_UNTRUSTED=1), whose folder defines an agent of its own.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, workspaceDir } from './util';

if (process.env.SWITCHBOARD_UNTRUSTED === '1') {
  describe('untrusted workspace', () => {
    it('is in restricted mode', () => {
      assert.strictEqual(vscode.workspace.isTrusted, false);
    });

    it('ignores agent definitions from the workspace configuration', async () => {
      const a = await api();
      assert.ok(!a.agents().some((x) => x.id === 'workspace-agent'), JSON.stringify(a.agents().map((x) => x.id)));
      // The folder does define one; VS Code withholds restricted settings of an untrusted folder.
      const defined = JSON.parse(fs.readFileSync(path.join(workspaceDir(), '.vscode', 'settings.json'), 'utf8'));
      assert.strictEqual(defined['agentSwitchboard.agents'][0].id, 'workspace-agent');
      assert.strictEqual(vscode.workspace.getConfiguration('agentSwitchboard').get('policy.write'), 'ask', 'the folder cannot loosen the policy');
    });

    it('starts no agent at all, even the built-in one, and launches nothing from the folder', async () => {
      const a = await api();
      await assert.rejects(a.startSession({ agentId: 'demo' }), /trusted workspace/);
      await assert.rejects(a.startSession({ agentId: 'workspace-agent' }), /trusted workspace|No agent/);
      await new Promise((r) => setTimeout(r, 500));
      assert.ok(!fs.existsSync(path.join(workspaceDir(), 'LAUNCHED_FROM_WORKSPACE_CONFIG')));
      assert.deepStrictEqual(a.sessions(), []);
    });
  });
}
