// A stubborn ACP agent for the process-cleanup tests: it ignores SIGHUP and SIGTERM, forks a
// grandchild that ignores them too (in its process group) at start and another for each prompt
// turn, and answers a turn only when it is cancelled. Every process it starts carries the marker
// given as its first argument in its command line, so a test can find leftovers in the process
// table. Usage: node test/fakes/stubborn-agent.mjs <marker> [deaf] [resume|load]
// With "deaf" it ignores session/cancel too, so a stopped turn is never answered (issue 18's
// "a deaf agent wedges Stop"); "resume" or "load" declare and answer session/resume or
// session/load (a load replays one exchange), for Restart Agent.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const marker = process.argv[2] ?? 'stubborn';
const deaf = process.argv.includes('deaf');
const takeUp = process.argv.includes('resume') ? 'resume' : process.argv.includes('load') ? 'load' : undefined;
process.on('SIGTERM', () => {});
process.on('SIGHUP', () => {});
const fork = () => spawn('/bin/sh', ['-c', `trap '' HUP TERM; sleep 300; : ${marker}`], { stdio: 'ignore' });
fork();

const turns = new Map();
acp
  .agent({ name: 'stubborn' })
  .onRequest('initialize', () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: takeUp === 'resume' ? { sessionCapabilities: { resume: {} } } : takeUp === 'load' ? { loadSession: true } : {},
    agentInfo: { name: 'stubborn', version: '1.0.0' },
    authMethods: [],
  }))
  .onRequest('session/new', () => ({ sessionId: `stubborn-${process.pid}` }))
  .onRequest('session/resume', () => ({}))
  .onRequest('session/load', async ({ params, client }) => {
    const update = (u) => client.notify('session/update', { sessionId: params.sessionId, update: u });
    await update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'replayed question' } });
    await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'replayed answer' } });
    return {};
  })
  .onNotification('session/cancel', ({ params }) => {
    if (!deaf) turns.get(params.sessionId)?.();
  })
  .onRequest('session/prompt', ({ params }) => {
    fork();
    return new Promise((resolve) => turns.set(params.sessionId, () => resolve({ stopReason: 'cancelled' })));
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
