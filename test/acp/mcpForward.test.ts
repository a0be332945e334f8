/**
 * Forwarding the person's MCP servers to agents: the exact `mcpServers` a scripted agent receives in
 * `session/new`, per the agent's `mcpCapabilities`, and the notice in the session thread.
 */
import assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { forwardServers, type ForwardCandidate, type Launcher } from '../../src/mcp/forward';
import { parseServerMap } from '../../src/mcp/config';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

const defs = parseServerMap(
  {
    fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/w'], env: { TOKEN: 'abc', DROPPED: null } },
    remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t0k' } },
    held: { command: 'x' },
  },
  'settings',
  'test',
).servers;
const candidates: ForwardCandidate[] = [
  { definition: defs[0], transport: defs[0].transport },
  { definition: defs[1], transport: defs[1].transport },
  { definition: defs[2], held: 'defined by the workspace: approve to start' },
];
// ACP cannot remove a variable: `DROPPED: null` makes the server go through our launcher.
const launcher: Launcher = { command: '/vscode/node', args: ['/ext/dist/mcp-launch.js'], env: { ELECTRON_RUN_AS_NODE: '1' } };
const launchedFs = {
  name: 'fs',
  command: '/vscode/node',
  args: ['/ext/dist/mcp-launch.js', JSON.stringify({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/w'], unset: ['DROPPED', 'ELECTRON_RUN_AS_NODE'] })],
  env: [{ name: 'ELECTRON_RUN_AS_NODE', value: '1' }, { name: 'TOKEN', value: 'abc' }],
};

describe('forwarding MCP servers to agents', () => {
  it('sends stdio always and HTTP only to agents that take it; reports what was not sent and why', () => {
    // The old expectation sent npx with DROPPED silently kept in the agent's environment (issue 16, finding 13).
    const without = forwardServers(candidates, undefined, launcher);
    assert.deepEqual(without.servers, [launchedFs]);
    assert.deepEqual(without.report.map((r) => [r.name, r.sent]), [['fs', true], ['remote', false], ['held', false]]);
    assert.match(without.report[1].reason ?? '', /mcpCapabilities\.http/);
    const withHttp = forwardServers(candidates, { http: true }, launcher);
    assert.deepEqual(withHttp.servers[1], { type: 'http', name: 'remote', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer t0k' }] });
  });

  for (const caps of [undefined, { http: true }] as (acp.McpCapabilities | undefined)[]) {
    it(`the agent receives exactly those servers in session/new (mcpCapabilities ${JSON.stringify(caps ?? {})})`, async () => {
      let received: acp.NewSessionRequest | undefined;
      const agent = scriptedAgent(async () => 'end_turn', { mcpCapabilities: caps, onNewSession: (p) => (received = p) });
      const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
      const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' }, new MemoryFiles(), new SessionTerminals('/w', () => process.env), testPolicy({ roots: ['/w'], readCurrent: async () => null }));
      try {
        const forward = forwardServers(candidates, conn.mcpCapabilities, launcher);
        await c.attach(conn, forward);
        assert.deepEqual(received?.mcpServers, forward.servers);
        assert.equal(received?.mcpServers.length, caps?.http ? 2 : 1);
        const notice = c.state.entries.find((e) => e.kind === 'notice');
        assert.ok(notice && notice.kind === 'notice' && /given to the agent: fs/.test(notice.text) && /held \(defined by the workspace/.test(notice.text), JSON.stringify(notice));
        assert.ok(!JSON.stringify(c.state).includes('t0k') && !JSON.stringify(c.state).includes('abc'), 'no header or env value in the session state');
      } finally {
        await c.dispose();
      }
    });
  }
});
