/**
 * Agents that do not ask (issue 19): a scripted agent sends `fs/write_text_file` and
 * `terminal/create` without `session/request_permission`. Under `ask` with `unrequestedEffects:
 * ask`, each request is held and becomes a card of our own; the person's answer covers that one
 * request exactly; every other ending (reject, no answer in time, Stop, close, the agent withdrawing
 * it, the file changing meanwhile) answers the agent with an error and performs nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { MAX_HELD_EFFECTS } from '../../src/acp/heldEffects';
import type { PermissionView } from '../../src/acp/session/types';
import { verifyAudit } from '../../src/policy/audit';
import type { PolicyDefaults } from '../../src/policy/gate';
import { intentHash, sha256 } from '../../src/policy/intent';
import { MemoryFiles } from '../fakes/memoryFiles';
import { RecordingTerminals, type Performed } from '../fakes/directSession';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

type Err = { code?: number; message?: string; data?: { reason?: string } };

describe('effects the agent did not ask about, asked at the effect (issue 19)', function () {
  this.timeout(20_000);
  let dir: string;
  let files: MemoryFiles;
  let performed: Performed[];
  let auditFile: string;
  let defaults: Partial<PolicyDefaults>;
  const sessions: SessionController[] = [];

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-held-')));
    auditFile = path.join(dir, 'audit.jsonl');
    files = new MemoryFiles();
    performed = [];
    defaults = { unrequestedEffects: 'ask' };
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((c) => c.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A session whose agent runs `script`; `onCard` sees every held card as it appears. */
  async function start(script: (t: TurnContext) => Promise<acp.StopReason>, onCard?: (c: SessionController, p: PermissionView) => void, opts: { audit?: boolean } = {}): Promise<SessionController> {
    const policy = testPolicy({ roots: [dir], readCurrent: async (p) => files.docs.get(p)?.text ?? null, auditFile: opts.audit === false ? undefined : auditFile, defaults: () => defaults });
    const conn = await AgentConnection.connect(scriptedAgent(script), { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: `k${sessions.length}`, agentId: 'scripted', agentName: 'Scripted', cwd: dir }, files, new RecordingTerminals(performed), policy);
    await c.attach(conn);
    const seen = new Set<string>();
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting' && !seen.has(p.permission.permissionId)) {
          seen.add(p.permission.permissionId);
          const perm = p.permission;
          setTimeout(() => onCard?.(c, perm), 5);
        }
      }
    });
    sessions.push(c);
    return c;
  }

  const write = async (t: TurnContext, p: string, content: string, signal?: AbortSignal): Promise<Err | undefined> => {
    try {
      await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: p, content }, signal ? { cancellationSignal: signal } : undefined);
      return undefined;
    } catch (e) {
      return e as Err;
    }
  };
  const run = async (t: TurnContext, req: Omit<acp.CreateTerminalRequest, 'sessionId'>): Promise<Err | string> => {
    try {
      return (await t.client.request('terminal/create', { sessionId: t.sessionId, ...req })).terminalId;
    } catch (e) {
      return e as Err;
    }
  };
  const audit = () => fs.readFileSync(auditFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; decision?: string; decidedBy?: string; intentHash?: string; detail?: Record<string, unknown> });

  it('holds an unasked write as a card of its own; Allow once performs exactly that write, verified, audited as asked at the effect', async () => {
    const file = path.join(dir, 'a.txt');
    files.docs.set(file, { text: 'old\n', version: 1, dirty: false });
    let err: Err | undefined = { code: 0 };
    let card: PermissionView | undefined;
    const c = await start(
      async (t) => {
        err = await write(t, file, 'new\n');
        return 'end_turn';
      },
      (s, p) => {
        card = p;
        assert.ok(s.answerPermission(p.permissionId, 'allow', 'person'));
      },
    );
    await c.prompt('go');
    assert.equal(err, undefined, 'the agent hears success');
    assert.equal(files.docs.get(file)?.text, 'new\n');
    assert.deepEqual(files.writes, [file]);
    assert.ok(card?.unrequested, 'marked as asked at the effect');
    assert.deepEqual(card?.options.map((o) => o.kind), ['allow_once', 'reject_once']);
    assert.deepEqual(card?.display, [{ type: 'write', path: 'a.txt', source: 'diff' }]);
    const tc = c.state.toolCalls[card!.toolCallId];
    assert.match(tc.toolCallId, /^editor-effect-/);
    assert.equal(tc.title, 'Write a.txt');
    assert.deepEqual(tc.content[0], { type: 'diff', path: file, oldText: 'old\n', newText: 'new\n', added: 1, removed: 1, ...(tc.content[0] as object) });
    assert.equal(tc.status, 'completed');
    assert.equal(tc.verification, 'client');
    // The hash on the card is the hash of exactly this effect: path, content and the text it replaced.
    const intent = { sessionId: 'k0', agentId: 'scripted', toolCallId: tc.toolCallId, kind: 'edit', effects: [{ type: 'write' as const, path: 'a.txt', contentSha256: [sha256('new\n')], baseSha256: sha256('old\n') }] };
    assert.equal(card?.intentHash, intentHash(intent));
    const records = audit();
    const decision = records.find((r) => r.event === 'decision');
    assert.equal(decision?.decision, 'allow_once');
    assert.equal(decision?.decidedBy, 'person');
    assert.equal(decision?.intentHash, card?.intentHash);
    assert.equal(decision?.detail?.askedAt, 'effect');
    assert.equal(decision?.detail?.agentAsked, false);
    assert.ok(records.some((r) => r.event === 'effect' && r.decision === 'allowed' && r.intentHash === card?.intentHash));
    assert.ok(verifyAudit(fs.readFileSync(auditFile, 'utf8')).ok);
  });

  it('each unasked write is held again: a second write (same or different content) is not covered by the first yes; Reject answers -32013', async () => {
    const file = path.join(dir, 'b.txt');
    const errs: (Err | undefined)[] = [];
    let n = 0;
    const c = await start(
      async (t) => {
        errs.push(await write(t, file, 'one\n'));
        errs.push(await write(t, file, 'one\n'));
        errs.push(await write(t, file, 'two\n'));
        return 'end_turn';
      },
      (s, p) => {
        n++;
        s.answerPermission(p.permissionId, n === 1 ? 'allow' : 'reject', 'person');
      },
    );
    await c.prompt('go');
    assert.equal(n, 3, 'three cards');
    assert.equal(errs[0], undefined);
    for (const e of errs.slice(1)) {
      assert.equal(e?.code, -32013);
      assert.equal(e?.data?.reason, 'rejected_at_effect');
      assert.match(e?.message ?? '', /the person rejected it/);
    }
    assert.deepEqual(files.writes, [file]);
    assert.equal(files.docs.get(file)?.text, 'one\n');
    const cards = Object.values(c.state.toolCalls).filter((t) => t.toolCallId.startsWith('editor-effect-'));
    assert.deepEqual(cards.map((t) => t.status), ['completed', 'rejected', 'rejected']);
  });

  it('a held command shows its words, folder and environment (a credential\'s value hidden, by its name); Allow once starts exactly it, once, after the person\'s second yes to the hidden value', async () => {
    const results: (Err | string)[] = [];
    let card: PermissionView | undefined;
    const oneClick: boolean[] = [];
    const c = await start(
      async (t) => {
        const req = { command: 'npm', args: ['test'], env: [{ name: 'CI', value: '1' }, { name: 'NPM_TOKEN', value: 'npm_abcdefghijklmnopqrstuvwxyz0123456789' }] };
        results.push(await run(t, req));
        return 'end_turn';
      },
      (s, p) => {
        card = p;
        // A value the card does not show is not allowed in one click, nor by the API, nor as a grant.
        oneClick.push(s.answerPermission(p.permissionId, 'allow', 'person'), s.answerPermission(p.permissionId, 'allow', 'api', undefined, { acceptHidden: true }), s.answerPermission(p.permissionId, 'allow', 'person', 'session'));
        assert.deepEqual(s.hiddenValuesOf(p.permissionId), [{ name: 'NPM_TOKEN', chars: 40 }]);
        assert.ok(s.answerPermission(p.permissionId, 'allow', 'person', undefined, { acceptHidden: true }));
      },
    );
    await c.prompt('go');
    assert.equal(typeof results[0], 'string', JSON.stringify(results[0]));
    assert.deepEqual(performed, [{ type: 'command', command: 'npm', args: ['test'], cwd: undefined, env: ['CI', 'NPM_TOKEN'] }]);
    const d = card?.display?.[0];
    assert.equal(d?.type, 'command');
    if (d?.type !== 'command') return;
    assert.equal(d.line, 'npm test');
    assert.equal(d.cwd, dir);
    assert.equal(d.env?.[0], 'CI=1');
    assert.match(d.env?.[1] ?? '', /^NPM_TOKEN=⟨value hidden: the name says it is a credential; 40 characters⟩$/);
    assert.ok(!JSON.stringify(c.state).includes('abcdefghijklmnopqrstuvwxyz'), 'the token is nowhere in the session state');
    assert.deepEqual(oneClick, [false, false, false], 'one click, the API and a grant cannot allow a value nobody saw');
    assert.match(card?.undeclared?.join(' ') ?? '', /Not shown: the value of NPM_TOKEN \(40 characters\).*Allowing asks you once more/);
    assert.equal(c.hiddenValuesOf(card!.permissionId), undefined, 'answered: nothing left to confirm');
    const tc = c.state.toolCalls[card!.toolCallId];
    assert.equal(tc.title, 'Run npm test');
    assert.deepEqual(tc.content.map((x) => x.type), ['terminal']);
    assert.equal(tc.verification, 'client');
  });

  it('a variable that chooses the program is shown whole though its name says credential, and Allow once takes one click', async () => {
    const env = [
      { name: 'AWS_SHARED_CREDENTIALS_FILE', value: 'creds' },
      { name: 'CARGO_REGISTRY_CREDENTIAL_PROVIDER', value: 'evil-provider' },
      { name: 'PASSWORD_STORE_EXTENSIONS_DIR', value: 'ext' },
      { name: 'SSH_AUTH_SOCK', value: 'agent' },
      { name: 'GITHUB_TOKEN', value: '/tmp/not-a-token' },
    ];
    const results: (Err | string)[] = [];
    let card: PermissionView | undefined;
    let hidden: unknown = 'unset';
    const c = await start(
      async (t) => {
        results.push(await run(t, { command: 'aws', args: ['s3', 'ls'], env }));
        return 'end_turn';
      },
      (s, p) => {
        card = p;
        hidden = s.hiddenValuesOf(p.permissionId);
        assert.ok(s.answerPermission(p.permissionId, 'allow', 'person'));
      },
    );
    await c.prompt('go');
    assert.equal(typeof results[0], 'string', JSON.stringify(results[0]));
    const d = card?.display?.[0];
    assert.equal(d?.type, 'command');
    if (d?.type !== 'command') return;
    assert.deepEqual(d.env, env.map((e) => `${e.name}=${e.value}`));
    assert.equal(hidden, undefined);
    assert.deepEqual(card?.undeclared ?? [], []);
    assert.deepEqual(performed.map((x) => x.type === 'command' && x.env), [env.map((e) => e.name)]);
  });

  it('the approval is bound to the held request: an identical request sent meanwhile cannot use it, and waits for its own answer', async () => {
    const file = path.join(dir, 'c.txt');
    const errs: (Err | undefined)[] = [];
    const cards: PermissionView[] = [];
    const c = await start(
      async (t) => {
        errs.push(...(await Promise.all([write(t, file, 'same\n'), write(t, file, 'same\n')])));
        return 'end_turn';
      },
      (s, p) => {
        cards.push(p);
        // Only the first card is allowed; the second is rejected a moment later.
        if (cards.length === 1) s.answerPermission(p.permissionId, 'allow', 'person');
        else setTimeout(() => s.answerPermission(p.permissionId, 'reject', 'person'), 100);
      },
    );
    await c.prompt('go');
    assert.equal(cards.length, 2);
    assert.equal(errs.filter((e) => e === undefined).length, 1, JSON.stringify(errs));
    assert.equal(errs.filter((e) => e?.data?.reason === 'rejected_at_effect').length, 1, JSON.stringify(errs));
    assert.deepEqual(files.writes, [file]);
  });

  it('a document edited while the card waited is not what the person saw: nothing is written (changed_while_held)', async () => {
    const file = path.join(dir, 'd.txt');
    files.docs.set(file, { text: 'base\n', version: 1, dirty: false });
    let err: Err | undefined;
    const c = await start(
      async (t) => {
        err = await write(t, file, 'agent\n');
        return 'end_turn';
      },
      (s, p) => {
        files.personEdits(file, 'mine\n');
        s.answerPermission(p.permissionId, 'allow', 'person');
      },
    );
    await c.prompt('go');
    assert.equal(err?.code, -32013);
    assert.equal(err?.data?.reason, 'changed_while_held');
    assert.equal(files.docs.get(file)?.text, 'mine\n', 'the person\'s text stays');
    assert.deepEqual(files.writes, []);
    const tc = Object.values(c.state.toolCalls).find((t) => t.toolCallId.startsWith('editor-effect-'))!;
    assert.equal(tc.status, 'failed');
    // (Tool content is drawn as Markdown: our sentence comes backslash-escaped, so it stays literal.)
    assert.ok(tc.content.some((x) => x.type === 'text' && /changed while the person\\?'s answer was pending/.test(x.text)), JSON.stringify(tc.content));
  });

  it('no answer within the bound: the agent gets -32013 (no_answer), the card is cancelled, nothing is performed', async () => {
    defaults = { unrequestedEffects: 'ask', unrequestedEffectMinutes: 0.005 };
    const file = path.join(dir, 'e.txt');
    let err: Err | undefined;
    let cmd: Err | string | undefined;
    const c = await start(async (t) => {
      err = await write(t, file, 'x\n');
      cmd = await run(t, { command: 'echo hi' });
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(err?.code, -32013);
    assert.equal(err?.data?.reason, 'no_answer');
    assert.match(err?.message ?? '', /nobody answered within/);
    assert.equal((cmd as Err).data?.reason, 'no_answer');
    assert.deepEqual(files.writes, []);
    assert.deepEqual(performed, []);
    assert.ok(Object.values(c.state.permissions).every((p) => p.state === 'cancelled'));
    const d = audit().filter((r) => r.event === 'decision');
    assert.deepEqual(d.map((r) => r.decision), ['cancelled', 'cancelled']);
  });

  it('Stop while a card waits: the agent gets -32800, nothing is performed; a write after Stop is refused without a card', async () => {
    const file = path.join(dir, 'f.txt');
    const errs: (Err | undefined)[] = [];
    let cards = 0;
    const c: SessionController = await start(
      async (t) => {
        errs.push(await write(t, file, 'x\n'));
        errs.push(await write(t, file, 'y\n'));
        return 'cancelled';
      },
      () => {
        cards++;
        void c.cancel();
      },
    );
    await c.prompt('go');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(cards, 1);
    assert.equal(errs[0]?.code, -32800);
    assert.equal(errs[0]?.data?.reason, 'cancelled');
    assert.equal(errs[1]?.code, -32800, 'after Stop, no card: refused at once');
    assert.deepEqual(files.writes, []);
  });

  it('the agent withdraws its held write ($/cancel_request): -32800, the card is cancelled, nothing is written', async () => {
    const file = path.join(dir, 'g.txt');
    let err: Err | undefined;
    const c = await start(async (t) => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 150);
      err = await write(t, file, 'x\n', ac.signal);
      return 'end_turn';
    });
    await c.prompt('go');
    assert.equal(err?.code, -32800);
    assert.deepEqual(files.writes, []);
    assert.equal(Object.values(c.state.permissions)[0].state, 'cancelled');
  });

  it('closing the session while a card waits answers the agent with an error and performs nothing', async () => {
    const file = path.join(dir, 'h.txt');
    let err: Err | undefined;
    let closed!: Promise<void>;
    const c: SessionController = await start(
      async (t) => {
        err = await write(t, file, 'x\n');
        return 'end_turn';
      },
      () => void (closed = c.dispose()),
    );
    await c.prompt('go').catch(() => undefined);
    await closed;
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(err && err.code !== undefined, 'an error, never an implicit allow');
    assert.deepEqual(files.writes, []);
  });

  it('"Allow for this session" on a held write grants exactly that path: the next write to it passes without a card', async () => {
    const file = path.join(dir, 'i.txt');
    const errs: (Err | undefined)[] = [];
    let cards = 0;
    const c = await start(
      async (t) => {
        errs.push(await write(t, file, '1\n'), await write(t, file, '2\n'), await write(t, path.join(dir, 'other.txt'), '3\n'));
        return 'end_turn';
      },
      (s, p) => {
        cards++;
        s.answerPermission(p.permissionId, 'allow', 'person', cards === 1 ? 'session' : undefined);
      },
    );
    await c.prompt('go');
    assert.deepEqual(errs, [undefined, undefined, undefined]);
    assert.equal(cards, 2, 'the granted path asked once; another file asked again');
  });

  it('a protected path is held too (an approval of that exact write), while a deny rule, a deny default and refuse never ask', async () => {
    const pkg = path.join(dir, 'package.json');
    let err: Err | undefined;
    let cards = 0;
    const c = await start(
      async (t) => {
        err = await write(t, pkg, '{}\n');
        return 'end_turn';
      },
      (s, p) => {
        cards++;
        s.answerPermission(p.permissionId, 'allow', 'person');
      },
    );
    await c.prompt('go');
    assert.equal(err, undefined);
    assert.equal(cards, 1);
    for (const d of [
      { unrequestedEffects: 'refuse' as const },
      { unrequestedEffects: 'ask' as const, write: 'deny' as const },
      { unrequestedEffects: 'ask' as const, deny: [{ kind: 'write' as const, pathGlob: '**' }] },
      { unrequestedEffects: 'ask' as const, protectedTargets: 'deny' as const },
    ]) {
      defaults = d;
      let e: Err | undefined;
      let asked = 0;
      const s = await start(
        async (t) => {
          e = await write(t, pkg, '{"x":1}\n');
          return 'end_turn';
        },
        () => asked++,
      );
      await s.prompt('go');
      assert.equal(asked, 0, `no card with ${JSON.stringify(d)}`);
      assert.equal(e?.code, -32013, JSON.stringify(d));
    }
  });

  it(`a flood: more than ${MAX_HELD_EFFECTS} held at once are refused at once; Reject all answers every card`, async () => {
    const errs: (Err | undefined)[] = [];
    // Requests answered so far: Reject all comes only once every request has arrived (the five over the
    // limit answered at once), else a late one would be held after it, as a new card (seen under load).
    let settled = 0;
    const c: SessionController = await start(async (t) => {
      errs.push(...(await Promise.all(Array.from({ length: MAX_HELD_EFFECTS + 5 }, (_, i) => write(t, path.join(dir, `flood-${i}.txt`), `${i}\n`).finally(() => settled++)))));
      return 'end_turn';
    }, undefined, { audit: false }); // hundreds of fsynced audit records would only slow the test
    const turn = c.prompt('go');
    const waiting = () => Object.values(c.state.permissions).filter((p) => p.state === 'waiting').length;
    const t0 = Date.now();
    for (let i = 0; i < 750 && (waiting() < MAX_HELD_EFFECTS || settled < 5); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(waiting(), MAX_HELD_EFFECTS, `cards after ${Date.now() - t0} ms`);
    assert.equal(settled, 5, 'the five over the limit were answered at once');
    const rejected = c.rejectAllWaiting('person');
    await turn;
    assert.deepEqual(rejected, { rejected: MAX_HELD_EFFECTS, left: 0 });
    assert.equal(errs.filter((e) => e?.data?.reason === 'too_many_held').length, 5);
    assert.equal(errs.filter((e) => e?.data?.reason === 'rejected_at_effect').length, MAX_HELD_EFFECTS);
    assert.deepEqual(files.writes, []);
  });

  it('a mode that does not ask is noted in the thread with what the gate does instead', async () => {
    const policy = testPolicy({ roots: [dir], defaults: () => defaults });
    const conn = await AgentConnection.connect(scriptedAgent(async () => 'end_turn'), { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: 'm', agentId: 'scripted', agentName: 'Gem', cwd: dir }, files, new RecordingTerminals(performed), policy);
    sessions.push(c);
    await c.attach(conn);
    assert.equal(c.state.unrequestedEffects, 'ask');
    c.onUpdate({ sessionUpdate: 'current_mode_update', currentModeId: 'yolo' });
    const notes = () => c.state.entries.filter((e) => e.kind === 'notice' && /does not ask before it writes files or runs commands/.test(e.text)).map((e) => (e.kind === 'notice' ? e.text : ''));
    assert.equal(notes().length, 1);
    assert.match(notes()[0], /In "yolo" Gem does not ask .* holds each write and command it sends and asks you here first/);
    defaults = { unrequestedEffects: 'refuse' };
    c.gateChanged();
    assert.equal(notes().length, 2);
    assert.match(notes()[1], /are refused \(agentSwitchboard\.policy\.unrequestedEffects is "refuse"\)/);
    c.onUpdate({ sessionUpdate: 'current_mode_update', currentModeId: 'default' });
    assert.equal(notes().length, 2, 'a mode that asks adds nothing');
  });
});
