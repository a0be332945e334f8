// A stubborn ACP agent for the process-cleanup tests: it ignores SIGHUP and SIGTERM, forks a
// grandchild that ignores them too (in its process group) at start and another for each prompt
// turn, and answers a turn only when it is cancelled. Every process it starts carries the marker
// given as its first argument in its command line, so a test can find leftovers in the process
// table. Usage: node test/fakes/stubborn-agent.mjs <marker>
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const marker = process.argv[2] ?? 'stubborn';
process.on('SIGTERM', () => {});
process.on('SIGHUP', () => {});
const fork = () => spawn('/bin/sh', ['-c', `trap '' HUP TERM; sleep 300; : ${marker}`], { stdio: 'ignore' });
fork();

const turns = new Map();
acp
  .agent({ name: 'stubborn' })
  .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: 'stubborn', version: '1.0.0' }, authMethods: [] }))
  .onRequest('session/new', () => ({ sessionId: `stubborn-${process.pid}` }))
  .onNotification('session/cancel', ({ params }) => turns.get(params.sessionId)?.())
  .onRequest('session/prompt', ({ params }) => {
    fork();
    return new Promise((resolve) => turns.set(params.sessionId, () => resolve({ stopReason: 'cancelled' })));
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
