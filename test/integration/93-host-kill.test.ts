/**
 * Resilience inside the real VS Code (`SWITCHBOARD_HOST_KILL_DIR` set): the extension host is killed
 * with SIGKILL in the middle of a turn, and started again. scripts/test-all.sh runs two windows on
 * the same workspace and storage (VS Code ends a test run when its extension host dies, so the
 * second start is a second window, as after a crash and a restart of the editor).
 *
 * First life: the demo agent's turn has had one permission answered and waits on the next; the test
 * notes what the session showed in `<dir>/killed.json` and kills its own extension host.
 * Second life (the note exists): the session is listed again, its transcript intact up to the last
 * update, the interrupted turn shown as ended, nothing waiting, the audit log's hash chain valid, and
 * the agent of the killed host gone (it ends when its stdin closes).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, until, waitForState, workspaceDir } from './util';

const PROMPT = 'HOST-KILL: show me the demo, then lose the extension host in the middle of it';

interface Note {
  sessionId: string;
  /** The agent processes the killed host had started. */
  agentPids: number[];
  entries: number;
  agentText: string;
  auditRecords: number;
}

describe('the extension host killed mid-turn', function () {
  const dir = process.env.SWITCHBOARD_HOST_KILL_DIR;
  before(function () {
    if (!dir) this.skip();
  });

  it('comes back with the session listed, its transcript intact and the audit chain valid', async function () {
    this.timeout(120_000);
    const note = path.join(dir!, 'killed.json');
    const a = await api();
    if (!fs.existsSync(note)) {
      // First life.
      const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
      let answered = 0;
      const sub = a.onDidChangeSession((e) => {
        if (e.key !== key) return;
        for (const p of Object.values(e.state.permissions)) {
          if (p.state === 'waiting' && answered === 0) {
            answered++;
            void a.answerPermission(key, p.permissionId, p.options.find((o) => o.kind === 'allow_once')!.optionId);
          }
        }
      });
      void a.prompt(key, PROMPT).catch(() => undefined);
      const state = await waitForState(a, key, (s) => answered === 1 && Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the second permission request');
      sub.dispose();
      // The journal writes on a short timer; give it that time, then read the audit chain as it is.
      await until('the session is in the journal', () => a.sessionHistory().find((e) => e.title === PROMPT && e.turns === 1), 10_000);
      await new Promise((r) => setTimeout(r, 1500));
      const audit = (await vscode.commands.executeCommand('agentSwitchboard.verifyAudit')) as { ok: boolean; records: number };
      assert.ok(audit.ok && audit.records >= 2, JSON.stringify(audit));
      const agentText = state.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
      assert.ok(state.sessionId, 'the agent named its session');
      fs.writeFileSync(note, JSON.stringify({ sessionId: state.sessionId, agentPids: childAgents(), entries: state.entries.length, agentText, auditRecords: audit.records } satisfies Note));
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => undefined); // The host is gone; this life reports nothing.
    }

    // Second life.
    const before = JSON.parse(fs.readFileSync(note, 'utf8')) as Note;
    const restored = await until('the session of the killed host is back', () => a.sessions().find((s) => a.session(s.key)?.sessionId === before.sessionId), 30_000);
    const s = a.session(restored.key)!;
    assert.ok(s.entries.length >= before.entries, `${s.entries.length} entries, ${before.entries} before the kill`);
    assert.deepStrictEqual(s.entries.filter((e) => e.kind === 'user').map((e) => ('text' in e ? e.text : '')), [PROMPT]);
    const agentText = s.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    assert.ok(agentText.startsWith(before.agentText), 'everything the agent said before the kill is there');
    assert.ok(Object.values(s.permissions).some((p) => p.state === 'selected'), 'the answered request');
    assert.ok(Object.values(s.permissions).every((p) => p.state !== 'waiting'), 'nothing waits any more');
    assert.match(s.entries.filter((e) => e.kind === 'notice').map((e) => ('text' in e ? e.text : '')).join('\n'), /ended during this turn/);
    const history = a.sessionHistory().find((e) => e.sessionId === before.sessionId);
    assert.ok(history, 'listed in the history');
    const audit = (await vscode.commands.executeCommand('agentSwitchboard.verifyAudit')) as { ok: boolean; records: number; reason?: string };
    assert.ok(audit.ok, JSON.stringify(audit));
    assert.ok(audit.records >= before.auditRecords, `${audit.records} audit records, ${before.auditRecords} before the kill`);
    assert.ok(before.agentPids.length > 0, 'the first life saw its agent');
    await until('the killed host\'s agent has ended', () => before.agentPids.every((pid) => !alive(pid)), 10_000);
    await a.closeSession(restored.key);
  });
});

/** Pids of the demo agents this extension host started (Linux /proc). */
function childAgents(): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === process.pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('demo-agent.js');
    } catch {
      return false;
    }
  });
}

/** Whether a process still runs (a zombie counts as ended). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
