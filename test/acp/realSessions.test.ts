/**
 * Real agents against the fake model server: claude-code-acp, opencode and codex-acp each answer a turn, their
 * process is ended (as a window reload ends it), and in a new process the session is listed by the
 * agent (`session/list`), resumed from our journal (`session/resume`) and answers another turn, and
 * loaded (`session/load`) from the agent alone with its replay merged into one transcript.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionJournal } from '../../src/acp/session/journal';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { SessionState } from '../../src/acp/session/types';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';
import { claudeCodeAcpLaunch, codexAcpLaunch, opencodeLaunch, type AgentLaunch, type LaunchInput } from '../fakes/agents';
import { FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';

const userTexts = (s: SessionState) => s.entries.filter((e) => e.kind === 'user').map((e) => ('text' in e ? e.text : ''));
const agentText = (s: SessionState) => s.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('\n');

for (const [name, recipe] of [
  ['claude-code-acp', claudeCodeAcpLaunch],
  ['opencode', opencodeLaunch],
  ['codex-acp', codexAcpLaunch],
] as [string, (i: LaunchInput) => AgentLaunch][]) {
  describe(`${name}: list, resume and load after the agent process is restarted`, function () {
    this.timeout(240_000);
    let root: string;
    let workspace: string;
    let fake: FakeModelServer;
    let agents: ResolvedAgent[];
    const managers: SessionManager[] = [];
    let journalDir: string;

    const newManager = () => {
      const files = new MemoryFiles();
      const m = new SessionManager({
        agents: () => agents,
        baseEnv: () => ({}),
        initializeTimeoutMs: () => 60_000,
        clientInfo: { name: 'real-sessions-test', version: '0' },
        filesFor: () => files,
        policy: allowAll(),
        terminalsFor: (_k, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
        journal: new SessionJournal(journalDir),
      });
      managers.push(m);
      return m;
    };

    before(async () => {
      root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-real-sessions-${name}-`)));
      workspace = path.join(root, 'workspace');
      journalDir = path.join(root, 'journal');
      fs.mkdirSync(workspace);
      fake = await startFakeModelServer({ workspace, scenario: 'text' });
      const launch = recipe({ home: path.join(root, 'home'), fakeUrl: fake.url });
      agents = [{ id: name, name, command: launch.command, resolvedCommand: launch.command, args: launch.args, env: launch.env, source: 'settings', available: true }];
    });
    after(async () => {
      for (const m of managers) await m.dispose();
      await fake?.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('lists the session, resumes it from the journal and loads it from the agent', async () => {
      const first = newManager();
      const c = await first.start(name, workspace);
      assert.equal((await c.prompt('Say hello, first turn.')).stopReason, 'end_turn');
      assert.ok(agentText(c.state).includes(FINAL_TEXT), agentText(c.state));
      const sessionId = c.state.sessionId!;
      const journalId = first.journalIdOf(c.state.key)!;
      const support = c.connection!.sessionSupport;
      assert.deepEqual({ list: support.list, load: support.load, resume: support.resume }, { list: true, load: true, resume: true });
      await first.dispose(); // the agent process ends with the window

      const second = newManager();
      const listed = await second.listAgentSessions(name, workspace);
      assert.ok(listed.sessions.some((s) => s.sessionId === sessionId), `session/list: ${JSON.stringify(listed.sessions)}`);
      const resumed = await second.takeUp({ journalId });
      assert.equal(resumed.state.status, 'ready');
      assert.equal(resumed.state.sessionId, sessionId);
      assert.deepEqual(userTexts(resumed.state), ['Say hello, first turn.']);
      assert.equal((await resumed.prompt('And a second turn after the restart.')).stopReason, 'end_turn');
      assert.deepEqual(userTexts(resumed.state), ['Say hello, first turn.', 'And a second turn after the restart.']);
      await second.dispose();

      // Load from the agent alone (no journal here): its replay makes the transcript, once.
      fs.rmSync(journalDir, { recursive: true, force: true });
      const third = newManager();
      const loaded = await third.takeUp({ agentId: name, sessionId, cwd: workspace });
      assert.equal(loaded.state.status, 'ready');
      const users = userTexts(loaded.state).join('\n');
      assert.ok(users.includes('Say hello, first turn.') && users.includes('And a second turn after the restart.'), `replayed user messages: ${users}`);
      assert.ok(agentText(loaded.state).includes(FINAL_TEXT), 'the agent\'s answers are replayed');
      assert.equal(userTexts(loaded.state).filter((t) => t.includes('Say hello, first turn.')).length, 1, 'nothing twice');
      if (fake.stray.length) console.log(`      (refused egress: ${fake.stray.join(', ')})`);
    });
  });
}
