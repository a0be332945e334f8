/**
 * Issue 18, holdout: refusing a relative path named a path built from the extension host's own
 * working folder (the gate resolved "notes.txt" on disk before anything checked it). A relative
 * `fs/*` path is refused as the agent sent it, saying that ACP requires absolute paths; nothing is
 * read or written, and no message, card or audit record names the host's working folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { checkContained, isWithin, realpathAllowMissing, PathNotAllowedError } from '../../src/fs/containment';
import type { EffectPolicy } from '../../src/policy/effectPolicy';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

type Err = { code?: number; message?: string; data?: { reason?: string; path?: string } };
const HOST_CWD = process.cwd();

describe('relative paths from an agent are refused as sent (ACP requires absolute paths)', () => {
  let dir: string;
  let files: MemoryFiles;
  let policy: EffectPolicy;
  let auditFile: string;
  const sessions: SessionController[] = [];

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-rel-')));
    auditFile = path.join(dir, 'audit.jsonl');
    files = new MemoryFiles();
    policy = testPolicy({ roots: [dir], readCurrent: async (p) => files.docs.get(p)?.text ?? null, auditFile });
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((c) => c.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(script: (t: TurnContext) => Promise<acp.StopReason>): Promise<SessionController> {
    const conn = await AgentConnection.connect(scriptedAgent(script), { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: `k${sessions.length}`, agentId: 'scripted', agentName: 'Scripted', cwd: dir }, files, new SessionTerminals(dir, () => process.env, { killGraceMs: 200 }), policy);
    await c.attach(conn);
    c.onDidChange((ch) => {
      for (const p of ch.patches) if (p.op === 'permission' && p.permission.state === 'waiting') setTimeout(() => c.answerPermission(p.permission.permissionId, 'once', 'person'), 5);
    });
    sessions.push(c);
    return c;
  }
  const call = async (f: () => Promise<unknown>): Promise<Err | undefined> => {
    try {
      await f();
      return undefined;
    } catch (e) {
      return e as Err;
    }
  };

  for (const rel of ['notes.txt', './src/a.ts', '../outside.txt', '~/x.txt']) {
    it(`fs/write_text_file and fs/read_text_file of ${JSON.stringify(rel)}: -32011 naming the path as sent, nothing read or written`, async () => {
      const errs: (Err | undefined)[] = [];
      const c = await start(async (t) => {
        // Approved first, so that only the path decides.
        await t.client.request('session/request_permission', {
          sessionId: t.sessionId,
          toolCall: { toolCallId: 'w', title: 'Write', kind: 'edit', content: [{ type: 'diff', path: rel, oldText: null, newText: 'x\n' }] },
          options: [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }],
        });
        errs.push(await call(() => t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: rel, content: 'x\n' })));
        errs.push(await call(() => t.client.request('fs/read_text_file', { sessionId: t.sessionId, path: rel })));
        return 'end_turn';
      });
      await c.prompt('go');
      for (const e of errs) {
        assert.equal(e?.code, -32011, JSON.stringify(e));
        assert.equal(e?.data?.reason, 'path_not_allowed');
        assert.equal(e?.data?.path, rel);
        assert.ok(e?.message?.includes(JSON.stringify(rel)), e?.message);
        assert.match(e?.message ?? '', /ACP requires absolute paths/);
        assert.ok(!e?.message?.includes(HOST_CWD), `names the host's folder: ${e?.message}`);
      }
      assert.equal(files.writes.length, 0);
      const notices = c.state.entries.filter((e) => e.kind === 'notice').map((e) => (e as { text: string }).text);
      assert.ok(notices.some((n) => n.includes(JSON.stringify(rel)) && /ACP requires absolute paths/.test(n)), JSON.stringify(notices));
      const card = Object.values(c.state.permissions)[0];
      assert.ok((card.undeclared ?? []).some((u) => u.includes(JSON.stringify(rel)) && /ACP requires absolute paths/.test(u)), JSON.stringify(card.undeclared));
      const everything = JSON.stringify(c.state) + (fs.existsSync(auditFile) ? fs.readFileSync(auditFile, 'utf8') : '');
      assert.ok(!everything.includes(path.join(HOST_CWD, rel.replace(/^\.\//, ''))), 'no state, card or audit record names a path resolved against the host\'s folder');
    });
  }

  it('containment, realpath and isWithin never resolve a relative path against the working folder', async () => {
    await assert.rejects(checkContained('notes.txt', [dir]), (e: unknown) => e instanceof PathNotAllowedError && /"notes\.txt"/.test(e.message) && /ACP requires absolute paths/.test(e.message) && !e.message.includes(HOST_CWD));
    await assert.rejects(realpathAllowMissing('notes.txt'), PathNotAllowedError);
    // The working folder itself as root: a relative child is still not "within" it.
    assert.equal(isWithin(HOST_CWD, 'package.json'), false);
    assert.equal(isWithin(HOST_CWD, path.join(HOST_CWD, 'package.json')), true);
  });
});
