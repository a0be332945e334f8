#!/usr/bin/env node
// A local A2A 1.0 agent written with @a2a-js/sdk's server side (DefaultRequestHandler + the Express
// JSON-RPC and HTTP+JSON handlers), for tests. It prints "listening <base url>" on stdout.
//
// What it does with the text of a message:
//   "cancel-me …"  works in 20 steps of --step-ms (default 250) until cancelled (then CANCELED)
//   "fail …"       FAILED with a status message
//   anything else  WORKING, then INPUT_REQUIRED ("Short or long?"); the reply (same task) leads to
//                  WORKING, an artifact "summary.md" sent in two appended chunks, then COMPLETED
//
//   --sign          signs the card (ES256, JWS over the canonical card); the key is served as a
//                   JWKS at /.well-known/jwks.json and named by `jku` in the protected header
//   --tamper        signs, then changes the description (the signature no longer matches)
//   --port N        listens on N (default: any free port)
//   --no-streaming  the card does not offer streaming (clients send SendMessage and poll GetTask)
//   --silent-stream streams that open but never send an event (a stalled agent)
//
// GET /debug/requests lists {method, path, traceparent, a2aVersion} of every A2A request seen, so a
// test can check the headers the client sent.
import express from 'express';
import crypto from 'node:crypto';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState, generateAgentCardSignature } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : d);
const stepMs = Number(opt('--step-ms', '250'));
const seen = [];

const text = (value) => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const agentMessage = (taskId, contextId, value) => ({
  messageId: crypto.randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: undefined, extensions: [], referenceTaskIds: [],
});
const status = (taskId, contextId, state, message) => AgentEvent.statusUpdate({
  taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: message ? agentMessage(taskId, contextId, message) : undefined }, metadata: undefined,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class FakeExecutor {
  cancelled = new Set();
  running = new Set();
  contexts = new Map();
  cancelTask = async (taskId, bus) => {
    // A running task stops at its next step; one that waits (input-required) is cancelled at once.
    if (this.running.has(taskId)) this.cancelled.add(taskId);
    else bus.publish(status(taskId, this.contexts.get(taskId) ?? '', TaskState.TASK_STATE_CANCELED, 'Cancelled while waiting for input.'));
  };

  async execute(ctx, bus) {
    this.running.add(ctx.taskId);
    this.contexts.set(ctx.taskId, ctx.contextId);
    try {
      await this.run(ctx, bus);
    } finally {
      this.running.delete(ctx.taskId);
    }
  }

  async run(ctx, bus) {
    const { taskId, contextId } = ctx;
    const said = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ').trim();
    // Every call starts with a task event, follow-up turns included (the SDK's request handler insists).
    bus.publish(AgentEvent.task(ctx.task
      ? { ...ctx.task, history: [...(ctx.task.history ?? []), ctx.userMessage] }
      : { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Reading the request…'));
    await sleep(stepMs);
    if (/^fail\b/i.test(said)) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, 'The fake agent was told to fail.'));
      return;
    }
    if (/^cancel-me\b/i.test(said)) {
      for (let step = 1; step <= 20; step++) {
        if (this.cancelled.has(taskId)) {
          this.cancelled.delete(taskId);
          bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED, `Cancelled at step ${step} of 20.`));
          return;
        }
        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, `Step ${step} of 20`));
        await sleep(stepMs);
      }
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'All 20 steps done.'));
      return;
    }
    if (!ctx.task || ctx.task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'Short or long?'));
      return;
    }
    const artifactId = 'summary';
    const base = { taskId, contextId, metadata: undefined };
    bus.publish(AgentEvent.artifactUpdate({ ...base, append: false, lastChunk: false, artifact: { artifactId, name: 'summary.md', description: `A ${said} summary`, parts: [text(`# Summary (${said})\n\n`)], metadata: undefined, extensions: [] } }));
    await sleep(stepMs);
    bus.publish(AgentEvent.artifactUpdate({ ...base, append: true, lastChunk: true, artifact: { artifactId, name: 'summary.md', description: `A ${said} summary`, parts: [text('The fake agent read the request and wrote this.\n')], metadata: undefined, extensions: [] } }));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'Done.'));
  }
}

const app = express();
const server = app.listen(Number(opt('--port', '0')), '127.0.0.1', async () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  let card = {
    name: 'Fake Research Agent',
    description: 'Summarises a request after asking one question; a test double for A2A 1.0.',
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: 'Agent Switchboard tests', url: 'https://example.invalid/fakes' },
    version: '1.2.0',
    capabilities: { streaming: !flag('--no-streaming'), pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      // The proto-JSON shape of the spec (the SDK's server would serve its internal `{scheme: {$case}}` shape as is).
      apiKey: { apiKeySecurityScheme: { description: 'A key in a header (optional here)', location: 'header', name: 'X-Api-Key' } },
    },
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'text/markdown'],
    skills: [
      { id: 'summarise', name: 'Summarise', description: 'Writes a summary after asking short or long.', tags: ['writing'], examples: ['Summarise the release notes'], inputModes: ['text/plain'], outputModes: ['text/markdown'], securityRequirements: [] },
      { id: 'long-job', name: 'Long job', description: 'Twenty slow steps; say "cancel-me" to start one.', tags: ['cancellation'], examples: ['cancel-me please'], inputModes: ['text/plain'], outputModes: ['text/plain'], securityRequirements: [] },
    ],
    documentationUrl: '',
    signatures: [],
  };
  if (flag('--sign') || flag('--tamper')) {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = 'fake-key-1';
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
    app.get('/.well-known/jwks.json', (_req, res) => res.json({ keys: [jwk] }));
    card = await generateAgentCardSignature(privateKey, { alg: 'ES256', kid, typ: 'JOSE', jku: `${base}/.well-known/jwks.json` })(card);
    if (flag('--tamper')) card = { ...card, description: `${card.description} (changed after signing)` };
  }
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new FakeExecutor());
  app.use((req, _res, next) => {
    if (req.path.startsWith('/a2a/')) seen.push({ method: req.method, path: req.path, traceparent: req.get('traceparent') ?? null, a2aVersion: req.get('A2A-Version') ?? null });
    next();
  });
  app.get('/debug/requests', (_req, res) => res.json(seen));
  if (flag('--silent-stream')) {
    // A stalled agent: the stream opens and nothing ever comes.
    app.post('/a2a/jsonrpc', express.json(), (req, res, next) => {
      if (req.body?.method !== 'SendStreamingMessage') return next();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    });
  }
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`listening ${base}\n`);
});
process.on('SIGTERM', () => process.exit(0));
