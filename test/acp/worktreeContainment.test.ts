/**
 * A session in a worktree of its own (issue 20) is contained there: its writes land in the worktree,
 * and a write into the main folder (or anywhere outside the worktree) is refused like one outside
 * the workspace, also under `write: allow` and without a card of the held effects.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { MemoryFiles } from '../fakes/memoryFiles';
import { RecordingTerminals, type Performed } from '../fakes/directSession';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

type Err = { code?: number; data?: { reason?: string } };

describe('a session in a worktree is contained in it (issue 20)', function () {
  this.timeout(20_000);
  let tmp: string;
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('writes in its worktree pass; writes into the main folder are refused without a card, whatever the policy', async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-wtc-')));
    const main = path.join(tmp, 'main');
    const wt = path.join(tmp, 'storage', 'wt-1');
    fs.mkdirSync(main, { recursive: true });
    fs.mkdirSync(wt, { recursive: true });
    for (const unrequestedEffects of ['ask', 'refuse'] as const) {
      const files = new MemoryFiles();
      const performed: Performed[] = [];
      // The workspace is the main folder; the session works in the worktree (outside it).
      const policy = testPolicy({ roots: [main], readCurrent: async (p) => files.docs.get(p)?.text ?? null, defaults: { write: 'allow', unrequestedEffects } });
      const results: (Err | undefined)[] = [];
      const write = async (t: TurnContext, p: string) => {
        try {
          await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: p, content: 'x\n' });
          return undefined;
        } catch (e) {
          return e as Err;
        }
      };
      const conn = await AgentConnection.connect(scriptedAgent(async (t) => {
        results.push(await write(t, path.join(wt, 'in-worktree.txt')), await write(t, path.join(main, 'in-main.txt')));
        return 'end_turn' as acp.StopReason;
      }), { agentName: 'S', clientInfo: { name: 't', version: '0' } });
      const c = new SessionController({ key: 'k', agentId: 's', agentName: 'S', cwd: wt }, files, new RecordingTerminals(performed), policy);
      c.setWorktree({ id: '1a2b3c4d', dir: wt, branch: 'switchboard/s-1a2b3c4d', repo: main });
      await c.attach(conn);
      await c.prompt('go');
      assert.equal(results[0], undefined, 'inside the worktree: performed');
      assert.equal(results[1]?.code, -32013, `outside it: refused (${unrequestedEffects})`);
      assert.deepEqual(files.writes, [path.join(wt, 'in-worktree.txt')]);
      assert.ok(!Object.values(c.state.permissions).some((p) => p.unrequested), 'no card for a write it may never make');
      await c.dispose();
    }
  });
});
