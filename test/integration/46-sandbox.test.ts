/**
 * Sandboxed effects in the real editor (issue 21): with `agentSwitchboard.sandbox` on, an approved
 * command runs in `@anthropic-ai/sandbox-runtime` (bubblewrap on Linux) with the profile its card
 * showed and its hash covers. Each attempt is asserted from the command's exit status and the file
 * system, not from what the card says: it cannot write outside the workspace, cannot read a file under
 * a denied path, cannot reach a loopback server that is not allowlisted, while an allowlisted host
 * works; a profile that changed after the approval is not covered by it; `always` with the sandbox
 * unavailable refuses to run, `ask` runs it and says it is not sandboxed.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, runCommand, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { click, screenshot } from './screenshot';
import type { SessionState } from '../../src/acp/session/types';
import type { SwitchboardApi } from '../../src/api';

const cfg = () => vscode.workspace.getConfiguration('agentSwitchboard');
const waiting = (s: SessionState) => Object.values(s.permissions).filter((p) => p.state === 'waiting');

function freshDir(name: string): string {
  const dir = path.join(workspaceDir(), name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs one turn of the run-commands scenario, answering every card with `answer`; the answer text and the session. */
async function runTurn(a: SwitchboardApi, key: string, commands: { command: string; ask?: boolean; pauseMs?: number }[], answer: (s: SessionState, p: ReturnType<typeof waiting>[number]) => 'allow' | 'reject' | 'later' = () => 'allow'): Promise<{ text: string; state: SessionState }> {
  const answered = new Set<string>();
  const sub = a.onDidChangeSession((e) => {
    if (e.key !== key) return;
    for (const p of waiting(e.state)) {
      if (answered.has(p.permissionId)) continue;
      const what = answer(e.state, p);
      if (what === 'later') continue;
      answered.add(p.permissionId);
      const option = p.options.find((o) => o.kind === (what === 'allow' ? 'allow_once' : 'reject_once'));
      setTimeout(() => a.answerPermission(key, p.permissionId, option!.optionId), 10);
    }
  });
  try {
    await a.prompt(key, JSON.stringify({ commands }));
  } finally {
    sub.dispose();
  }
  const state = a.session(key)!;
  const last = [...state.entries].reverse().find((e) => e.kind === 'agent' && 'text' in e && e.text.includes('run-commands results'));
  return { text: last && 'text' in last ? last.text : '', state };
}

/** The output the scenario put on the card of command `i` of the latest turn. */
function outputOf(state: SessionState, i: number): string {
  const calls = Object.values(state.toolCalls).filter((t) => t.toolCallId.startsWith(`demo-run-${i}-`));
  const raw = calls.at(-1)?.rawOutput as { output?: string } | undefined;
  return raw?.output ?? '';
}

describe('sandboxed effects: commands that cannot reach beyond what was granted (issue 21)', function () {
  this.timeout(180_000);
  let server: http.Server;
  let port = 0;
  let hits = 0;
  const secretDir = path.join(os.homedir(), '.ssh');
  const secretFile = path.join(secretDir, `switchboard-sandbox-probe-${process.pid}`);
  let madeSshDir = false;
  const outside = path.join(os.homedir(), `.switchboard-sandbox-outside-${process.pid}`);

  before(async () => {
    server = http.createServer((_q, r) => {
      hits++;
      r.end('hello-from-the-host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    madeSshDir = !fs.existsSync(secretDir);
    fs.mkdirSync(secretDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(secretFile, 'SWITCHBOARD-SECRET-KEY\n');
    await cfg().update('policy', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('sandbox', 'ask', vscode.ConfigurationTarget.Global);
    await cfg().update('sandboxAllowedHosts', [], vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('run-commands', 'run-commands')]);
  });

  after(async () => {
    await setAgents([]);
    for (const k of ['sandbox', 'sandboxAllowedHosts', 'sandboxBubblewrapPath']) await cfg().update(k, undefined, vscode.ConfigurationTarget.Global);
    server.close();
    fs.rmSync(secretFile, { force: true });
    if (madeSshDir) fs.rmSync(secretDir, { recursive: true, force: true });
    fs.rmSync(outside, { force: true });
  });

  it('an approved sandboxed command writes only in the workspace, cannot read ~/.ssh, cannot reach a loopback server; an allowlisted host works', async () => {
    const a = await api();
    const dir = freshDir('sandbox-basic');
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    // -f: an HTTP refusal from the sandbox's proxy (403) is a failed command, as a refused connection is.
    const curl = `curl -f --noproxy '' -sS -m 10 http://127.0.0.1:${port}/`;
    let shown: ReturnType<typeof waiting>[number] | undefined;
    const first = await runTurn(
      a,
      key,
      [
        { command: 'echo inside > inside.txt && echo wrote-inside', ask: true },
        { command: `echo escaped > ${outside}`, ask: true },
        { command: `cat ${secretFile}`, ask: true },
        { command: curl, ask: true },
      ],
      (_s, p) => {
        shown ??= p;
        return 'allow';
      },
    );
    // The card said it in words, and the intent it approved carried the profile.
    const line = shown?.display?.find((d) => d.type === 'command');
    assert.ok(line && line.type === 'command' && line.sandbox?.sandboxed, JSON.stringify(shown?.display));
    assert.match(line.sandbox.text, /^Sandboxed when the editor runs it: can write only in .* \(its changes reach them when it ends; files that tools run — \.git, node_modules, .* are held back at any depth and listed\); no network; cannot read \d+ credential/);
    assert.ok(line.sandbox.text.includes(fs.realpathSync(workspaceDir())) || line.sandbox.text.includes(fs.realpathSync(dir)), line.sandbox.text);

    assert.match(first.text, /- 0: exit 0/, first.text);
    assert.strictEqual(fs.readFileSync(path.join(dir, 'inside.txt'), 'utf8'), 'inside\n', 'the workspace is writable');
    assert.match(first.text, /- 1: exit [1-9]/, first.text);
    assert.ok(!fs.existsSync(outside), 'nothing was written outside the workspace');
    assert.match(first.text, /- 2: exit [1-9]/, first.text);
    assert.ok(!outputOf(first.state, 2).includes('SWITCHBOARD-SECRET-KEY'), outputOf(first.state, 2));
    assert.match(first.text, /- 3: exit [1-9]/, first.text);
    assert.strictEqual(hits, 0, 'the loopback server was not reached');
    assert.match(outputOf(first.state, 3), new RegExp(`\\[sandbox\\] deny network-outbound 127\\.0\\.0\\.1:${port}`), outputOf(first.state, 3));

    // The person allows the host: the same command reaches it (a new profile, a new card).
    await cfg().update('sandboxAllowedHosts', [`127.0.0.1:${port}`], vscode.ConfigurationTarget.Global);
    let hostCard: ReturnType<typeof waiting>[number] | undefined;
    const second = await runTurn(a, key, [{ command: curl, ask: true }], (_s, p) => {
      hostCard ??= p;
      return 'allow';
    });
    const hostLine = hostCard?.display?.find((d) => d.type === 'command');
    assert.ok(hostLine && hostLine.type === 'command' && hostLine.sandbox?.text.includes(`network only to 127.0.0.1:${port}`), JSON.stringify(hostCard?.display));
    assert.match(second.text, /- 0: exit 0/, second.text);
    assert.match(outputOf(second.state, 0), /hello-from-the-host/);
    assert.strictEqual(hits, 1, 'the allowlisted host was reached once');
    await cfg().update('sandboxAllowedHosts', [], vscode.ConfigurationTarget.Global);
    await a.closeSession(key);
  });

  it('a sandboxed command cannot leave a repository, an interpreter or a module for the editor to run: they are held back and listed, and the editor\'s git never runs the fsmonitor it set', async () => {
    const a = await api();
    const dir = freshDir('sandbox-runs');
    const marker = path.join(os.homedir(), `.switchboard-fsmonitor-ran-${process.pid}`);
    fs.rmSync(marker, { force: true });
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    const plant = [
      `git init -q nested && git -C nested config core.fsmonitor 'touch ${marker}; false'`,
      `git init -q a/b && git -C a/b config core.fsmonitor 'touch ${marker}; false'`,
      "mkdir -p .venv/bin && printf '#!/bin/sh\\n' > .venv/bin/python",
      "mkdir -p node_modules/typescript && echo 'module.exports = 1' > node_modules/typescript/index.js",
      'echo plain > plain.txt',
    ].join(' && ');
    const turn = await runTurn(a, key, [{ command: plant, ask: true }]);
    assert.match(turn.text, /- 0: exit 0/, turn.text);
    assert.strictEqual(fs.readFileSync(path.join(dir, 'plain.txt'), 'utf8'), 'plain\n', 'an ordinary file is carried back');
    for (const rel of ['nested/.git', 'a/b/.git', '.venv', 'node_modules']) assert.ok(!fs.existsSync(path.join(dir, rel)), `${rel} must not reach the workspace`);
    const out = outputOf(turn.state, 0);
    for (const rel of ['nested/.git', 'a/b/.git', '.venv', 'node_modules']) assert.ok(out.includes(`held back, not applied: ${path.join(fs.realpathSync(dir), rel)}`), out);
    const run = a.traceSpans(key).find((x) => x.attributes['agent_switchboard.span.kind'] === 'effect' && x.attributes['agent_switchboard.effect.kind'] === 'command');
    // The editor's git looks at folders that appear in the workspace within about a second.
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(!fs.existsSync(marker), 'the fsmonitor a sandboxed command set never ran');
    await a.closeSession(key);
    // Its effect span says it ran sandboxed, in the overlay, and how many changes were held back.
    assert.ok(run && run.endMs !== undefined, JSON.stringify(run));
    assert.strictEqual(run.attributes['agent_switchboard.sandboxed'], true);
    assert.match(String(run.attributes['agent_switchboard.sandbox.profile.hash']), /^[0-9a-f]{64}$/);
    assert.strictEqual(run.attributes['agent_switchboard.sandbox.overlay'], true);
    assert.strictEqual(run.attributes['agent_switchboard.sandbox.held_back'], out.split('\n').filter((l) => l.startsWith('[sandbox] held back, not applied: ')).length);
    assert.strictEqual(run.attributes['process.exit.code'], 0);
  });

  it('a host the sandbox refused: the card names it from the sandbox\'s record; "Allow … and run again" runs the command again with it, as a new approved intent', async () => {
    const a = await api();
    const dir = freshDir('sandbox-rerun');
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const curl = `curl -f --noproxy '' -sS -m 10 http://127.0.0.1:${port}/`;
    const before = hits;
    const r = await runTurn(a, key, [{ command: `echo '[sandbox] deny network-outbound evil.example:443 (host is not on the allow list)'; exit 1`, ask: true }, { command: curl, ask: true }]);
    assert.match(r.text, /- 1: exit [1-9]/, r.text);
    const blocked = Object.values(r.state.terminals).find((t) => t.commandLine === curl);
    assert.deepStrictEqual(blocked?.sandboxBlocked, [`127.0.0.1:${port}`], JSON.stringify(blocked));
    // A command that only prints such a line offers nothing: the hosts come from the sandbox, not the output.
    const printed = Object.values(r.state.terminals).find((t) => t.commandLine.startsWith('echo'));
    assert.ok(printed && !printed.sandboxBlocked, JSON.stringify(printed));
    await assert.rejects(a.allowSandboxHost(key, printed!.terminalId, 'evil.example:443'), /did not refuse/);
    await screenshot('sandbox-blocked-host', 30000, { waitForSelector: '.sandbox-allow-host' });
    await click('.sandbox-allow-host');
    const done = await waitForState(a, key, (s) => Object.values(s.toolCalls).some((t) => t.toolCallId.startsWith('switchboard-rerun-') && t.status === 'completed'), 'the command run again', 30_000);
    const rerun = Object.values(done.toolCalls).find((t) => t.toolCallId.startsWith('switchboard-rerun-'))!;
    assert.match(rerun.title, new RegExp(`with 127\\.0\\.0\\.1:${port} allowed`));
    assert.strictEqual(hits, before + 1, 'the host was reached by the run again');
    const term = Object.values(done.terminals).find((t) => t.terminalId !== blocked!.terminalId && t.commandLine === curl && t.exitStatus?.exitCode === 0);
    assert.ok(term && /hello-from-the-host/.test(term.output), JSON.stringify(Object.values(done.terminals).map((t) => [t.commandLine, t.exitStatus, t.output.slice(0, 200)])));
    // The session's later commands run with the host, and their cards say so.
    let card: ReturnType<typeof waiting>[number] | undefined;
    const again = await runTurn(a, key, [{ command: curl, ask: true }], (_s, p) => {
      card ??= p;
      return 'allow';
    });
    const line = card?.display?.find((d) => d.type === 'command');
    assert.ok(line && line.type === 'command' && line.sandbox?.text.includes(`network only to 127.0.0.1:${port}`), JSON.stringify(card?.display));
    assert.match(again.text, /- 0: exit 0/, again.text);
    await a.closeSession(key);
  });

  it('a profile that changed after the approval is not what was approved: the command is held and asked about again, and runs only as newly shown', async () => {
    const a = await api();
    const dir = freshDir('sandbox-changed');
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    const cards: ReturnType<typeof waiting>[number][] = [];
    const changed = runTurn(a, key, [{ command: 'echo ran > ran.txt', ask: true, pauseMs: 3000 }], (_s, p) => {
      cards.push(p);
      // The first card (the agent's request) is allowed; the held one (the effect, in the new profile) is rejected.
      return cards.length === 1 ? 'allow' : 'reject';
    });
    await until('the first card answered', () => (cards.length ? true : undefined), 30_000);
    // Between the approval and the effect, the person's settings give commands a host more.
    await cfg().update('sandboxAllowedHosts', ['registry.example.com'], vscode.ConfigurationTarget.Global);
    const r = await changed;
    assert.strictEqual(cards.length, 2, 'the changed effect was put to the person again');
    assert.ok(cards[1].unrequested, 'as a held effect');
    const held = cards[1].display?.find((d) => d.type === 'command');
    assert.ok(held && held.type === 'command' && held.sandbox?.text.includes('registry.example.com'), JSON.stringify(cards[1].display));
    assert.notStrictEqual(cards[1].intentHash, cards[0].intentHash);
    assert.match(r.text, /- 0: refused/, r.text);
    assert.ok(!fs.existsSync(path.join(dir, 'ran.txt')), 'nothing ran');
    await cfg().update('sandboxAllowedHosts', [], vscode.ConfigurationTarget.Global);
    await a.closeSession(key);
  });

  it('always, with the sandbox unavailable, refuses to run; ask runs it and the card says it is not sandboxed', async () => {
    const a = await api();
    const dir = freshDir('sandbox-unavailable');
    await cfg().update('sandboxBubblewrapPath', '/nonexistent/bwrap', vscode.ConfigurationTarget.Global);
    await cfg().update('sandbox', 'always', vscode.ConfigurationTarget.Global);
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    let card: ReturnType<typeof waiting>[number] | undefined;
    const r = await runTurn(a, key, [{ command: 'echo ran > always.txt', ask: true }], (_s, p) => {
      card ??= p;
      return 'allow';
    });
    assert.ok(card?.undeclared?.some((u) => /Will not run: the sandbox is not available \(bubblewrap was not found at \/nonexistent\/bwrap/.test(u)), JSON.stringify(card?.undeclared));
    assert.match(r.text, /- 0: refused .*the sandbox is not available/, r.text);
    assert.ok(!fs.existsSync(path.join(dir, 'always.txt')), 'nothing ran unsandboxed');
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('sandbox-unavailable-always', 30000, { waitForSelector: '.turn-end' });

    await cfg().update('sandbox', 'ask', vscode.ConfigurationTarget.Global);
    let askCard: ReturnType<typeof waiting>[number] | undefined;
    const r2 = await runTurn(a, key, [{ command: 'echo ran > ask.txt', ask: true }], (_s, p) => {
      askCard ??= p;
      return 'allow';
    });
    const line = askCard?.display?.find((d) => d.type === 'command');
    assert.ok(line && line.type === 'command' && line.sandbox && !line.sandbox.sandboxed && /^Not sandboxed: the sandbox is not available/.test(line.sandbox.text), JSON.stringify(askCard?.display));
    assert.match(r2.text, /- 0: exit 0/, r2.text);
    assert.ok(fs.existsSync(path.join(dir, 'ask.txt')));
    const plainRun = a.traceSpans(key).find((x) => x.attributes['agent_switchboard.effect.kind'] === 'command');
    await cfg().update('sandboxBubblewrapPath', undefined, vscode.ConfigurationTarget.Global);
    await a.closeSession(key);
    assert.strictEqual(plainRun?.attributes['agent_switchboard.sandboxed'], false, 'its effect span says it ran unsandboxed');
  });

  it('a stdio MCP server whose definition asks for the sandbox cannot write outside its folder', async () => {
    const a = await api();
    const folder = freshDir('sandbox-mcp');
    const fake = path.resolve(__dirname, '..', '..', '..', 'test', 'fakes', 'mcp-server.mjs');
    const outsideMcp = path.join(os.homedir(), `.switchboard-sandbox-mcp-${process.pid}`);
    await cfg().update('mcpServers', { boxed: { command: process.execPath, args: [fake], env: { ELECTRON_RUN_AS_NODE: '1' }, cwd: folder, sandbox: true } }, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('agentSwitchboard.mcp.start');
      await until('the sandboxed server running', () => a.mcpServers().find((x) => x.id === 'settings:boxed')?.state?.state === 'running', 60_000);
      const write = async (file: string) => ((await runCommand('agentSwitchboard.mcp.runTool', { type: 'tool', serverId: 'settings:boxed', name: 'write' }, { path: file, text: 'x' })) as { content: { text: string }[] }).content[0].text;
      assert.strictEqual(await write(path.join(folder, 'inside.txt')), `wrote ${path.join(folder, 'inside.txt')}`);
      assert.ok(fs.existsSync(path.join(folder, 'inside.txt')));
      assert.match(await write(outsideMcp), /^error: (EROFS|EACCES|EPERM)/);
      const span = a.traceSpans('mcp:settings:boxed').find((x) => x.name.startsWith('mcp server '));
      assert.strictEqual(span?.attributes['agent_switchboard.sandboxed'], true, `the server's span says it runs sandboxed: ${JSON.stringify(span?.attributes)}`);
      assert.ok(!fs.existsSync(outsideMcp), 'nothing written outside its folder');
      // Elsewhere in the workspace too, unless the workspace itself is in the temp folder (as in CI), which stays writable.
      const tmp = fs.realpathSync(os.tmpdir());
      if (!fs.realpathSync(workspaceDir()).startsWith(tmp + path.sep)) assert.match(await write(path.join(workspaceDir(), 'next-to-it.txt')), /^error: /, 'nor elsewhere in the workspace');
    } finally {
      await cfg().update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(outsideMcp, { force: true });
      // Run Tool opened its results (read-only documents of its own scheme); later suites read the active editor.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('a workspace\'s sandboxed MCP server is approved for its profile: a changed profile stops it and asks again', async () => {
    const a = await api();
    const folder = freshDir('sandbox-mcp-approval');
    const fake = path.resolve(__dirname, '..', '..', '..', 'test', 'fakes', 'mcp-server.mjs');
    const id = 'workspace-settings:boxed-ws';
    const server = () => a.mcpServers().find((x) => x.id === id);
    await cfg().update('mcpServers', { 'boxed-ws': { command: process.execPath, args: [fake], env: { ELECTRON_RUN_AS_NODE: '1' }, cwd: folder, sandbox: true } }, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('agentSwitchboard.mcp.start');
      await until('held for approval', () => /approve to start/.test(server()?.held ?? ''), 30_000);
      await runCommand('agentSwitchboard.mcp.approve', { type: 'server', serverId: id }, true);
      await until('the approved server running', () => server()?.state?.state === 'running', 60_000);
      // A host allowed afterwards: the profile it would start in is not the approved one.
      await cfg().update('sandboxAllowedHosts', ['registry.example.com'], vscode.ConfigurationTarget.Global);
      await until('held again', () => /its sandbox changed since you approved it: approve again/.test(server()?.held ?? ''), 30_000);
      assert.strictEqual(server()?.state, undefined, 'stopped, not restarted in the new profile');
      await runCommand('agentSwitchboard.mcp.approve', { type: 'server', serverId: id }, true);
      await until('running in the profile approved now', () => server()?.state?.state === 'running', 60_000);
      // Back to no host: again not the profile approved last.
      await cfg().update('sandboxAllowedHosts', [], vscode.ConfigurationTarget.Global);
      await until('held once more', () => /its sandbox changed/.test(server()?.held ?? ''), 30_000);
    } finally {
      await cfg().update('mcpServers', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg().update('sandboxAllowedHosts', [], vscode.ConfigurationTarget.Global);
    }
  });

  it('the card of a sandboxed command at 300 px says what it may touch', async () => {
    const a = await api();
    const dir = freshDir('sandbox-card');
    await cfg().update('sandbox', 'ask', vscode.ConfigurationTarget.Global);
    const key = await a.startSession({ agentId: 'run-commands', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = runTurn(a, key, [{ command: 'npm test', ask: true }], () => 'later');
    await waitForState(a, key, (s) => waiting(s).length > 0, 'the card');
    await screenshot('sandbox-card', 30000, { waitForSelector: '.command-sandbox.sandboxed' });
    await a.cancel(key);
    await turn.catch(() => undefined);
    await a.closeSession(key);
  });
});
