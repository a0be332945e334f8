/**
 * The permission gate end to end: a scripted agent asks permission, the person answers, and then
 * the agent's fs/write_text_file and terminal/create pass only if they match the approved intent.
 * Every refusal case fails closed: JSON-RPC -32013, nothing written or run, a record in the audit.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { verifyAudit } from '../../src/policy/audit';
import type { EffectPolicy } from '../../src/policy/effectPolicy';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

const OPTIONS: acp.PermissionOption[] = [
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

type Err = { code?: number; message?: string; data?: { reason?: string } };

describe('permission gate end to end (scripted agent, in-memory)', () => {
  let dir: string;
  let files: MemoryFiles;
  let policy: EffectPolicy;
  let auditFile: string;
  const sessions: SessionController[] = [];

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-gate-')));
    auditFile = path.join(dir, 'audit.jsonl');
    files = new MemoryFiles();
    policy = testPolicy({ roots: [dir], readCurrent: async (p) => files.docs.get(p)?.text ?? null, auditFile });
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((c) => c.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(script: (t: TurnContext) => Promise<acp.StopReason>, answer: string = 'once'): Promise<SessionController> {
    const conn = await AgentConnection.connect(scriptedAgent(script), { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: `k${sessions.length}`, agentId: 'scripted', agentName: 'Scripted', cwd: dir }, files, new SessionTerminals(dir, () => process.env, { killGraceMs: 200 }), policy);
    await c.attach(conn);
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') setTimeout(() => c.answerPermission(p.permission.permissionId, answer, 'person'), 5);
      }
    });
    sessions.push(c);
    return c;
  }

  const ask = (t: TurnContext, toolCall: acp.ToolCallUpdate) => t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall, options: OPTIONS });
  const write = async (t: TurnContext, p: string, content: string): Promise<Err | undefined> => {
    try {
      await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: p, content });
      return undefined;
    } catch (e) {
      return e as Err;
    }
  };
  const run = async (t: TurnContext, command: string, cwd?: string): Promise<Err | string> => {
    try {
      return (await t.client.request('terminal/create', { sessionId: t.sessionId, command, ...(cwd ? { cwd } : {}) })).terminalId;
    } catch (e) {
      return e as Err;
    }
  };
  const editCall = (p: string, oldText: string | null, newText: string): acp.ToolCallUpdate => ({ toolCallId: 'w', title: 'Write', kind: 'edit', content: [{ type: 'diff', path: p, oldText, newText }] });

  it('approving an empty new file or a no-op change counts: the write passes and is verified', async () => {
    const empty = path.join(dir, 'empty.txt');
    const same = path.join(dir, 'same.txt');
    files.docs.set(same, { text: 'unchanged\n', version: 1, dirty: false });
    const results: (Err | undefined)[] = [];
    const c = await start(async (t) => {
      await ask(t, editCall(empty, null, ''));
      results.push(await write(t, empty, ''));
      await ask(t, { ...editCall(same, 'unchanged\n', 'unchanged\n'), toolCallId: 'w2' });
      results.push(await write(t, same, 'unchanged\n'));
      return 'end_turn';
    });
    await c.prompt('go');
    assert.deepEqual(results, [undefined, undefined]);
    assert.equal(c.state.toolCalls.w.verification, 'client');
    assert.equal(c.state.toolCalls.w2.verification, 'client');
  });

  it('the approved write passes; the card carries the intent hash; a second use of allow-once is refused', async () => {
    const file = path.join(dir, 'a.txt');
    const results: (Err | undefined)[] = [];
    const c = await start(async (t) => {
      await ask(t, editCall(file, null, 'hello\n'));
      results.push(await write(t, file, 'hello\n'), await write(t, file, 'hello\n'));
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(results[0], undefined);
    assert.equal(results[1]?.code, -32013);
    assert.equal(results[1]?.data?.reason, 'no_approval');
    assert.equal(files.writes.length, 1);
    const perm = Object.values(c.state.permissions)[0];
    assert.match(perm.intentHash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(c.state.toolCalls.w.verification, 'client');
    assert.ok(c.state.entries.some((e) => e.kind === 'notice' && /Refused: Writing a\.txt/.test(e.text)));
  });

  it('refuses content changed after approval', async () => {
    const file = path.join(dir, 'b.txt');
    let err: Err | undefined;
    const c = await start(async (t) => {
      await ask(t, editCall(file, null, 'approved\n'));
      err = await write(t, file, 'something else\n');
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(err?.code, -32013);
    assert.equal(files.docs.has(file), false);
  });

  it('a fragment diff (claude Edit) matches the base with the fragment replaced, nothing else', async () => {
    const file = path.join(dir, 'c.ts');
    files.docs.set(file, { text: 'const a = 1;\nconst b = 2;\n', version: 1, dirty: false });
    const errs: (Err | undefined)[] = [];
    const c = await start(async (t) => {
      await t.client.request('fs/read_text_file', { sessionId: t.sessionId, path: file });
      await ask(t, editCall(file, 'a = 1', 'a = 10'));
      errs.push(await write(t, file, 'const a = 10;\nconst b = 2;\nevil();\n'));
      errs.push(await write(t, file, 'const a = 10;\nconst b = 2;\n'));
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(errs[0]?.code, -32013, 'more than declared is refused');
    assert.equal(errs[1], undefined, 'exactly the declared change passes');
    assert.equal(files.docs.get(file)?.text, 'const a = 10;\nconst b = 2;\n');
  });

  it('a request without content is approved at path level and the card says so', async () => {
    const file = path.join(dir, 'd.txt');
    let err: Err | undefined;
    const c = await start(async (t) => {
      await ask(t, { toolCallId: 'w', title: 'Edit d.txt', kind: 'edit', rawInput: { file_path: file } });
      err = await write(t, file, 'whatever\n');
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(err, undefined);
    assert.match(Object.values(c.state.permissions)[0].undeclared?.[0] ?? '', /did not show what it will write/);
  });

  it('an edit card that offers "Always allow" says that writing any file amounts to running commands (issue 16, finding 14)', async () => {
    const file = path.join(dir, 'n.txt');
    const c = await start(async (t) => {
      await ask(t, editCall(file, null, 'x\n'));
      return 'end_turn';
    });
    await c.prompt('go');
    const p = Object.values(c.state.permissions)[0];
    const notes = p.grantNotes ?? [];
    assert.ok(notes.some((n) => /"Always allow" lets the agent write any workspace file.*amounts to running commands/.test(n)), notes.join('\n'));
    // Said beside the choice it is about (under "Allow more…"), not among the request's warnings.
    assert.ok(!(p.undeclared ?? []).some((n) => /Always allow/.test(n)), (p.undeclared ?? []).join('\n'));
  });

  it('refuses a different command or cwd; allows the approved one', async () => {
    const results: (Err | string)[] = [];
    const c = await start(async (t) => {
      await ask(t, { toolCallId: 'x', title: 'echo ok', kind: 'execute', rawInput: { command: 'echo ok' } });
      results.push(await run(t, 'echo ok; curl evil'), await run(t, 'echo ok', os.tmpdir()), await run(t, 'echo ok'));
      return 'end_turn';
    }, 'always');
    await c.prompt('go');
    assert.equal((results[0] as Err).code, -32013);
    assert.equal((results[1] as Err).code, -32013);
    assert.equal(typeof results[2], 'string');
  });

  it('another session cannot use this session\'s approval', async () => {
    const file = path.join(dir, 'e.txt');
    let release!: () => void;
    const approved = new Promise<void>((r) => (release = r));
    let err: Err | undefined;
    const first = await start(async (t) => {
      await ask(t, editCall(file, null, 'x\n'));
      release();
      return 'end_turn';
    }, 'always');
    const second = await start(async (t) => {
      await approved;
      err = await write(t, file, 'x\n');
      return 'end_turn';
    });
    await Promise.all([first.prompt('ask'), second.prompt('use it')]);
    assert.equal(err?.code, -32013);
    assert.equal(files.writes.length, 0);
  });

  it('a symlink inside the workspace does not hide a protected target; a legitimate write through a symlink passes', async () => {
    fs.mkdirSync(path.join(dir, '.git'));
    fs.symlinkSync(path.join(dir, '.git'), path.join(dir, 'innocent'));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.symlinkSync(path.join(dir, 'sub'), path.join(dir, 'alias'));
    const sneaky = path.join(dir, 'innocent', 'config');
    const aliased = path.join(dir, 'alias', 'ok.txt');
    const errs: (Err | undefined)[] = [];
    const c = await start(async (t) => {
      await ask(t, { toolCallId: 'w', title: 'Edit', kind: 'edit', content: [{ type: 'diff', path: sneaky, oldText: null, newText: 'x' }, { type: 'diff', path: aliased, oldText: null, newText: 'fine\n' }] });
      errs.push(await write(t, aliased, 'fine\n'));
      return 'end_turn';
    }, 'always');
    await c.prompt('go');
    assert.equal(errs[0], undefined, 'the aliased write matches its declaration');
    // The "always" answer granted writes of any workspace file for the session; .git stays protected.
    const check = await policy.checkWrite({ sessionId: c.state.key, agentId: 'scripted', cwd: dir }, sneaky, 'y');
    assert.equal(!check.allowed && check.reason, 'protected_target');
  });

  it('while a card waits, an update cannot change what it shows: the person approves what the intent covers', async () => {
    const file = path.join(dir, 'swap.txt');
    let err: Err | undefined;
    let shown = '';
    const c = await start(async (t) => {
      const answer = ask(t, editCall(file, null, 'EVIL\n'));
      // After the card appears, the agent tries to make it show something harmless.
      await new Promise((r) => setTimeout(r, 1));
      await t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'w', content: [{ type: 'diff', path: file, oldText: null, newText: 'benign\n' }], rawInput: { content: 'benign\n' } });
      await answer;
      err = await write(t, file, 'EVIL\n');
      return 'end_turn';
    });
    c.onDidChange(() => {
      const d = c.state.toolCalls.w?.content.find((x) => x.type === 'diff');
      if (c.state.toolCalls.w?.status === 'awaiting_approval' && d && d.type === 'diff') shown = d.newText;
    });
    await c.prompt('go');
    assert.equal(shown, 'EVIL\n', 'the card kept showing the content the intent was built from');
    assert.equal(err, undefined, 'and that content is what was approved');
  });

  it('a grant answers later requests it covers by itself; a protected path is never answered by a grant', async () => {
    const results: (Err | string)[] = [];
    let protectedErr: Err | undefined;
    const c = await start(async (t) => {
      await ask(t, { toolCallId: 'x1', title: 'echo ok', kind: 'execute', rawInput: { command: 'echo ok' } });
      results.push(await run(t, 'echo ok'));
      // The same command again: the grant from the first answer covers it.
      const second = await ask(t, { toolCallId: 'x2', title: 'echo ok', kind: 'execute', rawInput: { command: 'echo ok' } });
      results.push(second.outcome.outcome === 'selected' ? second.outcome.optionId : 'cancelled');
      results.push(await run(t, 'echo ok'));
      const gitConfig = path.join(dir, '.git', 'config');
      const third = t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall: { toolCallId: 'w9', title: 'Write .git/config', kind: 'edit', content: [{ type: 'diff', path: gitConfig, oldText: null, newText: 'x' }] }, options: OPTIONS });
      results.push((await third).outcome.outcome);
      protectedErr = await write(t, gitConfig, 'x');
      return 'end_turn';
    }, 'once');
    // The person answers the first request "for this session"; later ones must not need them.
    const answered: string[] = [];
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state !== 'waiting') answered.push(`${p.permission.toolCallId}:${p.permission.answeredBy}`);
      }
    });
    const sub = c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting' && p.permission.toolCallId === 'x1') {
          sub.dispose();
          setTimeout(() => c.answerPermission(p.permission.permissionId, 'once', 'person', 'session'), 1);
        }
      }
    });
    await c.prompt('go');
    assert.equal(typeof results[0], 'string', 'first command ran');
    assert.equal(results[1], 'once', 'the second request was answered with the agent\'s allow option');
    assert.equal(typeof results[2], 'string', 'second command ran');
    assert.ok(answered.includes('x2:grant'), answered.join(','));
    assert.equal(c.state.permissions[Object.keys(c.state.permissions).find((k) => c.state.permissions[k].toolCallId === 'x2')!].grant?.scope, 'session');
    assert.ok(answered.includes('w9:person') && !answered.includes('w9:grant'), `the protected write waited for the person: ${answered.join(',')}`);
    assert.equal(protectedErr, undefined, 'and, approved exactly by them, it was performed');
  });

  it('a rejected request approves nothing; the audit chain records decisions and refusals', async () => {
    const file = path.join(dir, 'f.txt');
    let err: Err | undefined;
    const c = await start(async (t) => {
      await ask(t, editCall(file, null, 'x\n'));
      err = await write(t, file, 'x\n');
      return 'end_turn';
    }, 'no');
    await c.prompt('go');
    assert.equal(err?.code, -32013);
    const text = fs.readFileSync(auditFile, 'utf8');
    assert.ok(verifyAudit(text).ok);
    const records = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(records.map((r) => `${r.event}:${r.decision}`), ['decision:reject_once', 'effect:refused']);
    assert.equal(records[0].decidedBy, 'person');
  });
});
