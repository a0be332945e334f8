// An ACP agent for the session-lifecycle tests (close, delete, logout, titles, usage). It appends
// one line per event to the file in LIFECYCLE_LOG ("<pid> <event> [<sessionId>]"), including its
// own end ("<pid> exit <signal>"), so a test can tell what the agent heard and in which order
// relative to its process ending. Behaviour through the environment:
//   LIFECYCLE_CAPS   JSON merged into agentCapabilities (default: close, delete, logout)
//   LIFECYCLE_CLOSE  "ok" (default) | "hang" (never answers session/close) | "notfound" (-32002)
//   LIFECYCLE_DELETE "ok" (default) | "fail" (internal error) | "notfound" (-32002)
//   LIFECYCLE_TITLE  the title a prompt sends (default: a short one with a line break and markup)
// A prompt sends a session_info_update title and a usage_update, then answers with `usage`.
// Usage: LIFECYCLE_LOG=/tmp/x.log node test/fakes/lifecycle-agent.mjs
import * as fs from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const logFile = process.env.LIFECYCLE_LOG;
const log = (line) => logFile && fs.appendFileSync(logFile, `${process.pid} ${line}\n`);
for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT']) {
  process.on(sig, () => {
    log(`exit ${sig}`);
    process.exit(0);
  });
}
process.stdin.on('end', () => {
  log('exit stdin-closed');
  process.exit(0);
});

const caps = { sessionCapabilities: { close: {}, delete: {} }, auth: { logout: {} }, ...JSON.parse(process.env.LIFECYCLE_CAPS ?? '{}') };
let n = 0;
log('start');
acp
  .agent({ name: 'lifecycle' })
  .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: caps, agentInfo: { name: 'lifecycle', version: '1.0.0' }, authMethods: [] }))
  .onRequest('session/new', () => {
    const sessionId = `life-${process.pid}-${++n}`;
    log(`session/new ${sessionId}`);
    return { sessionId };
  })
  .onRequest('session/close', ({ params }) => {
    log(`session/close ${params.sessionId}`);
    if (process.env.LIFECYCLE_CLOSE === 'hang') return new Promise(() => {});
    if (process.env.LIFECYCLE_CLOSE === 'notfound') throw acp.RequestError.sessionNotFound(params.sessionId);
    return {};
  })
  .onRequest('session/delete', ({ params }) => {
    log(`session/delete ${params.sessionId}`);
    if (process.env.LIFECYCLE_DELETE === 'fail') throw acp.RequestError.internalError(undefined, 'the disk is read-only');
    if (process.env.LIFECYCLE_DELETE === 'notfound') throw acp.RequestError.sessionNotFound(params.sessionId);
    return {};
  })
  .onRequest('logout', () => {
    log('logout');
    return {};
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    log(`session/prompt ${params.sessionId}`);
    const update = (u) => client.notify('session/update', { sessionId: params.sessionId, update: u });
    await update({ sessionUpdate: 'session_info_update', title: process.env.LIFECYCLE_TITLE ?? 'Fix the\nlogin <b>bug</b>', updatedAt: '2026-12-01T10:00:00Z' });
    await update({ sessionUpdate: 'usage_update', used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } });
    await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } });
    return { stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 340, totalTokens: 1540 } };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
