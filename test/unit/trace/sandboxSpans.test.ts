/**
 * The spans of processes we start say whether they ran in the sandbox: an agent's command (its
 * effect span, which lasts until the command exits and then carries what the overlay held back)
 * and a stdio MCP server (the span of its life). A write carries no sandbox attribute: the editor
 * performs it itself.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState, type TerminalView } from '../../../src/acp/session/types';
import { McpServerConnection } from '../../../src/mcp/connection';
import type { EffectCheck } from '../../../src/policy/effectPolicy';
import { profileHash, type SandboxProfile } from '../../../src/sandbox/profile';
import { McpSpans, mcpTraceKey } from '../../../src/trace/mcpSpans';
import { SessionSpans } from '../../../src/trace/sessionSpans';
import { TraceStore } from '../../../src/trace/store';
import { Tracing } from '../../../src/trace/tracing';

const PROFILE: SandboxProfile = { writeRoots: ['/w', '/tmp'], denyRead: ['/home/me/.ssh'], allowedHosts: ['registry.npmjs.org'], holdsBackRunnable: true };

type Allowed = Extract<EffectCheck, { allowed: true }>;
const command = (line: string, sandbox?: SandboxProfile): Allowed => ({ allowed: true, source: 'policy', effect: { type: 'command', command: line, args: [], cwd: '/w', envNames: [], ...(sandbox ? { sandbox } : {}) }, description: `run ${line}` }) as unknown as Allowed;

function session() {
  const store = new TraceStore();
  const tracing = new Tracing(store, '0.0.0');
  const state = createSessionState({ key: 'k', agentId: 'a', agentName: 'Agent', cwd: '/w' });
  const spans = new SessionSpans(tracing, state);
  spans.observe(reduce(state, { type: 'ready', sessionId: 's1' }));
  const terminal = (t: Partial<TerminalView> & { terminalId: string }) => spans.observe(reduce(state, { type: 'terminal', terminal: { commandLine: 'x', cwd: '/w', output: '', truncated: false, ...t } }));
  const span = (name: string) => store.spans('k').find((s) => s.name === name);
  return { store, tracing, state, spans, terminal, span };
}

describe('sandbox attributes on the spans of processes we start', () => {
  it('a sandboxed command: sandboxed, its profile, the overlay; the span lasts until it exits, then says what was held back', () => {
    const { spans, terminal, span } = session();
    const end = spans.effect(command('npm install', PROFILE), undefined);
    end(undefined, 'term-1');
    const live = span('run npm install');
    assert.ok(live, 'the effect span is in the store while the command runs');
    assert.equal(live.endMs, undefined, 'it runs as long as the command');
    assert.equal(live.attributes['agent_switchboard.sandboxed'], true);
    assert.equal(live.attributes['agent_switchboard.sandbox.profile.hash'], profileHash(PROFILE));
    assert.deepEqual(live.attributes['agent_switchboard.sandbox.allowed_hosts'], ['registry.npmjs.org']);
    assert.equal(live.attributes['agent_switchboard.sandbox.overlay'], true);
    assert.equal(live.attributes['agent_switchboard.sandbox.held_back'], undefined, 'not known before it exits');
    terminal({ terminalId: 'term-1', output: 'added 3 packages' });
    assert.equal(span('run npm install')?.endMs, undefined, 'output alone does not end it');
    terminal({ terminalId: 'term-1', exitStatus: { exitCode: 0, signal: null }, sandboxHeldBack: 2 });
    const done = span('run npm install')!;
    assert.ok(done.endMs !== undefined, 'it ends when the command exits');
    assert.equal(done.attributes['agent_switchboard.sandbox.held_back'], 2);
    assert.equal(done.attributes['process.exit.code'], 0);
    assert.equal(done.status.code, 'unset');
  });

  it('a command that failed still ran: its exit code, not an error status; nothing held back says 0', () => {
    const { spans, terminal, span } = session();
    spans.effect(command('make', PROFILE), undefined)(undefined, 't2');
    terminal({ terminalId: 't2', exitStatus: { exitCode: 2, signal: null }, sandboxHeldBack: 0 });
    const s = span('run make')!;
    assert.equal(s.attributes['process.exit.code'], 2);
    assert.equal(s.attributes['agent_switchboard.sandbox.held_back'], 0);
    assert.equal(s.status.code, 'unset');
  });

  it('an unsandboxed command says so and has no profile; a profile without the overlay has no held-back count', () => {
    const { spans, terminal, span } = session();
    spans.effect(command('ls'), undefined)(undefined, 't3');
    terminal({ terminalId: 't3', exitStatus: { exitCode: 0, signal: null } });
    const plain = span('run ls')!;
    assert.equal(plain.attributes['agent_switchboard.sandboxed'], false);
    assert.equal(plain.attributes['agent_switchboard.sandbox.profile.hash'], undefined);
    assert.ok(plain.endMs !== undefined);
    const direct: SandboxProfile = { writeRoots: ['/w'], denyRead: [], allowedHosts: [] };
    spans.effect(command('pwd', direct), undefined)(undefined, 't4');
    terminal({ terminalId: 't4', exitStatus: { exitCode: 0, signal: null }, sandboxHeldBack: 0 });
    const s = span('run pwd')!;
    assert.equal(s.attributes['agent_switchboard.sandboxed'], true);
    assert.equal(s.attributes['agent_switchboard.sandbox.overlay'], false);
    assert.deepEqual(s.attributes['agent_switchboard.sandbox.allowed_hosts'], []);
    assert.equal(s.attributes['agent_switchboard.sandbox.held_back'], undefined, 'no overlay: nothing could be held back');
  });

  it('a command that exited before its start was reported ends at once; one still running ends with the session; a write has no sandbox attribute', () => {
    const { spans, terminal, span } = session();
    terminal({ terminalId: 'fast', exitStatus: { exitCode: 0, signal: null }, sandboxHeldBack: 1 });
    spans.effect(command('true', PROFILE), undefined)(undefined, 'fast');
    assert.equal(span('run true')?.attributes['agent_switchboard.sandbox.held_back'], 1);
    assert.ok(span('run true')?.endMs !== undefined);
    spans.effect(command('sleep 100', PROFILE), undefined)(undefined, 'slow');
    spans.effect(command('false', PROFILE), undefined)('the terminal could not be created');
    assert.ok(span('run false')?.endMs !== undefined && span('run false')?.status.code === 'error', 'a start that failed ends at once');
    const write = { allowed: true, source: 'policy', effect: { type: 'write', path: 'a.txt', contentSha256: [], baseSha256: null }, description: 'write a.txt' } as unknown as Allowed;
    spans.effect(write, undefined)();
    assert.equal(span('write a.txt')?.attributes['agent_switchboard.sandboxed'], undefined);
    assert.equal(span('run sleep 100')?.endMs, undefined);
    spans.end();
    assert.ok(span('run sleep 100')?.endMs !== undefined, 'closing the session ends it');
  });

  it('a stdio MCP server started in the sandbox says so on the span of its life; one started plainly says it is not', async function () {
    this.timeout(30_000);
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const tracer = new McpSpans(tracing);
    const fake = path.join(__dirname, '..', '..', 'fakes', 'mcp-server.mjs');
    const spec = { type: 'stdio' as const, command: process.execPath, args: [fake], env: {} };
    const base = { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env, tracer };
    // The sandbox stands in: the launch comes back as sandboxed in PROFILE (it runs as given).
    const boxed = new McpServerConnection('boxed', 'boxed', spec, { ...base, sandboxLaunch: async (l) => ({ ...l, sandbox: PROFILE, finishSandbox: () => '' }) });
    const plain = new McpServerConnection('plain', 'plain', spec, { ...base, sandboxLaunch: async (l) => l });
    try {
      await boxed.start();
      await plain.start();
      const server = (id: string) => store.spans(mcpTraceKey(id)).find((s) => s.name === `mcp server ${id}`)!;
      assert.equal(server('boxed').attributes['agent_switchboard.sandboxed'], true);
      assert.equal(server('boxed').attributes['agent_switchboard.sandbox.profile.hash'], profileHash(PROFILE));
      assert.equal(server('plain').attributes['agent_switchboard.sandboxed'], false);
    } finally {
      await boxed.stop();
      await plain.stop();
      tracer.dispose();
    }
  });
});
