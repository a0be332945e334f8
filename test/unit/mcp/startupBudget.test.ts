/**
 * `agentSwitchboard.mcpStartupTimeoutSeconds` is read when a server starts, not once at
 * activation: with a fake configuration whose value changes, the next start uses the new budget.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { McpHost, startupBudgetFrom } from '../../../src/mcp/host';
import type { McpServerDefinition } from '../../../src/mcp/config';

const FAKE = path.join(__dirname, '..', '..', 'fakes', 'mcp-server.mjs');

describe('the MCP startup budget follows its setting live', function () {
  this.timeout(30_000);

  it('reads the setting at each start; out-of-range values mean the default', () => {
    const settings: Record<string, unknown> = { mcpStartupTimeoutSeconds: 5 };
    const budget = startupBudgetFrom(() => ({ get: (k: string) => settings[k] }));
    assert.equal(budget(), 5000);
    settings.mcpStartupTimeoutSeconds = 120;
    assert.equal(budget(), 120_000);
    for (const bad of [0, 601, '10', null, undefined, Number.NaN]) {
      settings.mcpStartupTimeoutSeconds = bad;
      assert.equal(budget(), 30_000, String(bad));
    }
  });

  it('a server restarted after the setting changed is shown as slow by the new budget', async () => {
    const settings: Record<string, unknown> = { mcpStartupTimeoutSeconds: 60 };
    const host = new McpHost({ clientInfo: { name: 't', version: '0' }, baseEnv: process.env, startupBudgetMs: startupBudgetFrom(() => ({ get: (k: string) => settings[k] })) });
    const definition = { id: 'slow', name: 'slow', source: 'settings', transport: { type: 'stdio', command: process.execPath, args: [FAKE, '--era', 'legacy', '--delay-ms', '2500'], env: {} } } as unknown as McpServerDefinition;
    try {
      host.reconcile([{ definition, transport: definition.transport }]);
      const c = host.connection('slow');
      const slowSeen = () => new Promise<boolean>((resolve) => {
        let seen = false;
        const sub = c.onDidChange(() => {
          if (c.state.state === 'starting' && c.state.slow) seen = true;
          if (c.state.state === 'running' || c.state.state === 'error') {
            sub.dispose();
            resolve(seen);
          }
        });
      });
      assert.equal(await slowSeen(), false, 'within 60 s it is not slow');
      settings.mcpStartupTimeoutSeconds = 1;
      const second = slowSeen();
      await c.restart();
      assert.equal(await second, true, 'after the change to 1 s, the same 2.5 s start is slow');
      assert.equal(c.state.state, 'running');
    } finally {
      host.dispose();
    }
  });
});
