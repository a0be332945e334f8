/**
 * Session lifecycle against a real agent process (test/fakes/lifecycle-agent.mjs, logging what it
 * hears and when it ends): `session/close` before the process ends when the person closes a
 * session (bounded wait, -32002 taken as closed, nothing sent when not offered or at window end),
 * Delete (`session/delete` and our journal), `logout`, and the agent's titles and usage.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionJournal } from '../../src/acp/session/journal';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { SessionController } from '../../src/acp/sessionController';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';

const AGENT = path.resolve(__dirname, '..', 'fakes', 'lifecycle-agent.mjs');
const tempDir = (p: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

describe('session lifecycle (close, delete, logout, titles, usage) with a real agent process', function () {
  this.timeout(30_000);
  let dir: string;
  let logFile: string;
  let managers: SessionManager[];

  /** A manager whose one agent is the lifecycle agent with `env` (its behaviour switches). */
  function manager(env: Record<string, string> = {}): { m: SessionManager; journal: SessionJournal } {
    const files = new MemoryFiles();
    const journal = new SessionJournal(path.join(dir, 'journal'));
    const agents: ResolvedAgent[] = [{ id: 'life', name: 'Lifecycle', command: process.execPath, resolvedCommand: process.execPath, args: [AGENT], env: { LIFECYCLE_LOG: logFile, ...env }, source: 'settings', available: true }];
    const m = new SessionManager({
      agents: () => agents,
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 15_000,
      clientInfo: { name: 'lifecycle-test', version: '0' },
      filesFor: () => files,
      policy: allowAll(),
      terminalsFor: (_key, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
      journal,
    });
    managers.push(m);
    return { m, journal };
  }

  /** The agent's log: `[event, sessionId?]` per line, for agent process `pid` only when given. */
  function heard(): string[] {
    if (!fs.existsSync(logFile)) return [];
    return fs.readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ').slice(1).join(' '));
  }

  /** The methods we sent the agent, in wire order (the connection's protocol record). */
  function sent(c: SessionController): string[] {
    const log = c.protocol!;
    return log.all().filter((e) => e.dir === 'out').map((e) => log.summary(e)).filter((s) => s.kind === 'request' || s.kind === 'notification').map((s) => s.method);
  }

  async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out; the agent heard: ${heard().join(' | ')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  beforeEach(() => {
    dir = tempDir('switchboard-lifecycle-');
    logFile = path.join(dir, 'agent.log');
    managers = [];
  });
  afterEach(async () => {
    for (const m of managers) await m.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends session/close before the agent process ends when the person closes the session', async () => {
    const { m } = manager();
    const c = await m.start('life', dir);
    const id = c.state.sessionId!;
    await m.close(c.state.key, { byPerson: true });
    await waitFor(() => heard().some((l) => l.startsWith('exit')));
    const log = heard();
    const close = log.indexOf(`session/close ${id}`);
    const exit = log.findIndex((l) => l.startsWith('exit'));
    assert.ok(close >= 0, `the agent heard session/close: ${log.join(' | ')}`);
    assert.ok(close < exit, `session/close came before the process ended: ${log.join(' | ')}`);
    assert.deepEqual(sent(c).slice(-1), ['session/close'], 'the last thing on the wire is session/close');
    assert.equal(c.capabilities!.rows().find((r) => r.capability === 'session/close')?.exercised, 1);
  });

  it('does not send session/close when the window ends (the session stays resumable), nor to an agent that does not offer it', async () => {
    const { m } = manager();
    const c = await m.start('life', dir);
    await m.dispose();
    await waitFor(() => heard().some((l) => l.startsWith('exit')));
    assert.ok(!heard().some((l) => l.startsWith('session/close')), heard().join(' | '));
    assert.ok(!sent(c).includes('session/close'));

    fs.rmSync(logFile);
    const { m: other } = manager({ LIFECYCLE_CAPS: JSON.stringify({ sessionCapabilities: {} }) });
    const d = await other.start('life', dir);
    await other.close(d.state.key, { byPerson: true });
    await waitFor(() => heard().some((l) => l.startsWith('exit')));
    assert.ok(!heard().some((l) => l.startsWith('session/close')), heard().join(' | '));
  });

  it('ends the process anyway when session/close is not answered within 2 s, and takes -32002 as closed', async () => {
    const { m } = manager({ LIFECYCLE_CLOSE: 'hang' });
    const c = await m.start('life', dir);
    const started = Date.now();
    await m.close(c.state.key, { byPerson: true });
    const took = Date.now() - started;
    await waitFor(() => heard().some((l) => l.startsWith('exit')));
    assert.ok(took >= 1900 && took < 6000, `closing took ${took} ms`);
    assert.ok(heard().some((l) => l.startsWith('session/close')));

    const { m: gone } = manager({ LIFECYCLE_CLOSE: 'notfound' });
    const d = await gone.start('life', dir);
    assert.equal(await d.connection!.closeSession(d.state.sessionId!), 'closed', '-32002 on close counts as success');
  });

  it('Delete asks the agent (session/delete) and removes our journal; a refusal or no support still removes ours and says so', async () => {
    const { m, journal } = manager();
    const c = await m.start('life', dir);
    await c.prompt('hello');
    const id = c.state.sessionId!;
    const journalId = m.journalIdOf(c.state.key)!;
    journal.flush(true);
    const file = path.join(journal.dir, `${journalId}.jsonl`);
    assert.ok(fs.existsSync(file));
    const result = await m.deleteSession({ journalId });
    assert.deepEqual(result, { agent: 'deleted' });
    assert.ok(heard().includes(`session/delete ${id}`), heard().join(' | '));
    // The shown copy was closed first (session/close), then the agent asked to delete it.
    const closedAt = heard().indexOf(`session/close ${id}`);
    assert.ok(closedAt >= 0 && closedAt < heard().indexOf(`session/delete ${id}`), heard().join(' | '));
    assert.equal(m.get(c.state.key), undefined);
    assert.equal(journal.get(journalId), undefined);
    assert.ok(!fs.existsSync(file), 'the journal file is gone');

    const { m: failing, journal: j2 } = manager({ LIFECYCLE_DELETE: 'fail' });
    const d = await failing.start('life', dir);
    const j2id = failing.journalIdOf(d.state.key)!;
    const failed = await failing.deleteSession({ journalId: j2id });
    assert.ok(typeof failed.agent === 'object' && /read-only/.test(failed.agent.failed), JSON.stringify(failed));
    assert.equal(j2.get(j2id), undefined, 'ours is removed whatever the agent answered');

    fs.rmSync(logFile);
    const { m: plain, journal: j3 } = manager({ LIFECYCLE_CAPS: JSON.stringify({ sessionCapabilities: {} }) });
    const e = await plain.start('life', dir);
    const j3id = plain.journalIdOf(e.state.key)!;
    assert.deepEqual(await plain.deleteSession({ journalId: j3id }), { agent: 'unsupported' });
    assert.ok(!heard().some((l) => l.startsWith('session/delete')), 'nothing is sent to an agent that does not offer it');
    assert.equal(j3.get(j3id), undefined);
  });

  it('logs out through a running session, and refuses (sending nothing) when the agent does not offer logout', async () => {
    const { m } = manager();
    const c = await m.start('life', dir);
    await m.logout('life', dir);
    assert.ok(heard().includes('logout'));
    assert.ok(sent(c).includes('logout'), 'through the running session\'s connection');
    assert.equal(c.capabilities!.rows().find((r) => r.capability === 'logout')?.exercised, 1);

    fs.rmSync(logFile);
    const { m: plain } = manager({ LIFECYCLE_CAPS: JSON.stringify({ auth: {} }) });
    await assert.rejects(plain.logout('life', dir), /does not offer logging out/);
    assert.ok(!heard().includes('logout'));
  });

  it('names the session with the agent\'s title (plain, one line), shows its usage, and keeps the turn\'s tokens apart', async () => {
    const { m, journal } = manager();
    const c = await m.start('life', dir);
    await c.prompt('first prompt text');
    assert.equal(c.state.title, 'Fix the login <b>bug</b>', 'one line of text, markup kept as text');
    assert.equal(c.state.updatedAt, Date.parse('2026-12-01T10:00:00Z'));
    assert.deepEqual(c.state.usage, { used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } });
    const end = c.state.entries.at(-1)!;
    assert.equal(end.kind, 'turn_end');
    assert.deepEqual(end.kind === 'turn_end' && end.usage, { inputTokens: 1200, outputTokens: 340, totalTokens: 1540 });
    assert.equal(journal.get(m.journalIdOf(c.state.key)!)?.title, 'Fix the login <b>bug</b>', 'the history lists it by the agent\'s title');
    const rows = c.capabilities!.rows();
    for (const k of ['session/update: usage_update', 'session/update: session_info_update']) {
      assert.equal(rows.find((r) => r.capability === k)?.group, 'agent sends', k);
    }
    assert.equal(rows.find((r) => r.capability === 'sessionCapabilities.delete')?.declared, true);
    assert.equal(rows.find((r) => r.capability === 'auth.logout')?.declared, true);
  });
});
