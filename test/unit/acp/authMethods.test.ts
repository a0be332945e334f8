/**
 * Logging an agent in from its `authMethods`, in both shapes today's agents send (recorded offline
 * from Copilot CLI 1.0.102 and claude-agent-acp 0.101.0): `type: "terminal"` runs the agent's own
 * command with the method's args; the older `_meta["terminal-auth"]` names the whole command.
 */
import assert from 'node:assert/strict';
import type { AuthMethod } from '@agentclientprotocol/sdk';
import { authChoicesOf, terminalAuthMeta } from '../../../src/acp/authMethods';

const AGENT = { command: 'claude-agent-acp', resolvedCommand: '/opt/agents/claude-agent-acp', args: ['--acp'] };
const ENV = { PATH: '/usr/bin', HOME: '/home/me' };

describe('auth methods: how an agent is logged in', () => {
  it('Copilot CLI: no type, the command in _meta["terminal-auth"]: a terminal login with that command, labelled', () => {
    const copilot = { id: 'copilot-login', name: 'Log in with Copilot CLI', description: 'Run `copilot login` in the terminal', _meta: { 'terminal-auth': { command: '/opt/copilot/copilot', args: ['login'], label: 'Copilot Login' } } } as AuthMethod;
    const [c] = authChoicesOf([copilot], AGENT, ENV);
    assert.deepEqual(c, { id: 'copilot-login', name: 'Log in with Copilot CLI', description: 'Run `copilot login` in the terminal', terminal: { command: '/opt/copilot/copilot', args: ['login'], env: ENV } });
    const [unlabelled] = authChoicesOf([{ id: 'x', name: 'X', _meta: { 'terminal-auth': { command: '/bin/login-x', label: 'X Login' } } } as AuthMethod], AGENT, ENV);
    assert.equal(unlabelled.description, 'X Login', 'its label says what it runs when the method has no description');
    assert.deepEqual(unlabelled.terminal?.args, []);
  });

  it('type "terminal" (claude-agent-acp): the agent\'s own command and args, then the method\'s', () => {
    const m = { id: 'console-login', name: 'Anthropic Console', type: 'terminal', args: ['--cli', 'auth', 'login', '--console'], env: { CLAUDE_X: '1', PATH: '/evil', NODE_OPTIONS: '--require /evil.js' } } as unknown as AuthMethod;
    const [c] = authChoicesOf([m], AGENT, ENV);
    assert.deepEqual(c.terminal, { command: '/opt/agents/claude-agent-acp', args: ['--acp', '--cli', 'auth', 'login', '--console'], env: { ...ENV, CLAUDE_X: '1' } }, 'no variable that changes what runs');
  });

  it('an agent method (authenticate) stays one; a malformed or relative terminal-auth is not run', () => {
    const [agentSide] = authChoicesOf([{ id: 'api-key', name: 'API Key', _meta: { 'api-key': { provider: 'openai' } } } as AuthMethod], AGENT, ENV);
    assert.deepEqual(agentSide, { id: 'api-key', name: 'API Key' });
    for (const bad of [{ command: 'copilot', args: ['login'] }, { command: '/x', args: [1] }, { args: ['login'] }, 'copilot login', null]) {
      assert.equal(terminalAuthMeta({ 'terminal-auth': bad }), undefined, JSON.stringify(bad));
    }
    const [env] = authChoicesOf([{ id: 'e', name: 'E', _meta: { 'terminal-auth': { command: '/bin/e', env: { LD_PRELOAD: '/evil.so', OK: 'yes' } } } } as AuthMethod], AGENT, ENV);
    assert.deepEqual(env.terminal?.env, { ...ENV, OK: 'yes' });
  });
});
