#!/usr/bin/env node
// A 2026-07-28 MCP server over stdio that runs a tool as a task (the Tasks extension,
// io.modelcontextprotocol/tasks, SEP-2663), written with @modelcontextprotocol/server's low-level
// Server: the SDK has no Tasks API on the server side, so tasks/get and tasks/cancel are custom
// request handlers and tools/call answers `resultType: "task"` when the client declared the extension.
//   report {steps}  each step takes --step-ms (default 300); status "step i of n"; result "report ready"
//   --poll-ms N     the pollIntervalMs it suggests (default 200)
// Every tasks/get and tasks/cancel is written to stderr, so tests can see the polling.
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const stepMs = Number(opt('--step-ms', '300'));
const pollMs = Number(opt('--poll-ms', '200'));
const EXT = 'io.modelcontextprotocol/tasks';
const tasks = new Map();
let seq = 0;

function view(t) {
  const now = Date.now();
  const done = Math.min(t.steps, Math.floor((now - t.started) / stepMs));
  if (t.status === 'working' && done >= t.steps) {
    t.status = 'completed';
    t.updated = now;
  }
  const base = { taskId: t.id, createdAt: new Date(t.started).toISOString(), lastUpdatedAt: new Date(t.updated ?? now).toISOString(), ttlMs: 60_000, pollIntervalMs: pollMs };
  if (t.status === 'cancelled') return { ...base, status: 'cancelled', statusMessage: 'cancelled on request' };
  if (t.status === 'completed') return { ...base, status: 'completed', statusMessage: 'done', result: { resultType: 'complete', content: [{ type: 'text', text: `report ready (${t.steps} steps)` }] } };
  return { ...base, status: 'working', statusMessage: `step ${done + 1} of ${t.steps}` };
}

function build() {
  const server = new Server({ name: 'fake-tasks', version: '1.0.0' }, { capabilities: { tools: {}, extensions: { [EXT]: {} } } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [{ name: 'report', description: 'Builds a report in steps (runs as a task).', inputSchema: { type: 'object', properties: { steps: { type: 'integer', default: 3 } } }, execution: { taskSupport: 'optional' } }],
  }));
  server.setRequestHandler('tools/call', async (req, ctx) => {
    if (req.params.name !== 'report') throw new Error(`unknown tool ${req.params.name}`);
    const steps = Number(req.params.arguments?.steps ?? 3);
    // The SDK moves the per-request `_meta` envelope to ctx.mcpReq.envelope before the handler runs.
    const caps = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'];
    if (!caps?.extensions?.[EXT]) {
      await new Promise((r) => setTimeout(r, steps * stepMs));
      return { content: [{ type: 'text', text: `report ready (${steps} steps, no task)` }] };
    }
    const t = { id: `task-${++seq}`, steps, started: Date.now(), status: 'working' };
    tasks.set(t.id, t);
    process.stderr.write(`fake-tasks: created ${t.id}\n`);
    return { resultType: 'task', ...view(t) };
  });
  const byId = (taskId) => {
    const t = tasks.get(taskId);
    if (!t) throw new Error(`unknown task ${taskId}`);
    return t;
  };
  server.setRequestHandler('tasks/get', { params: z.object({ taskId: z.string() }).passthrough() }, async ({ taskId }) => {
    process.stderr.write(`fake-tasks: get ${taskId} at ${Date.now()}\n`);
    return view(byId(taskId));
  });
  server.setRequestHandler('tasks/cancel', { params: z.object({ taskId: z.string() }).passthrough() }, async ({ taskId }) => {
    const t = byId(taskId);
    if (t.status === 'working') {
      t.status = 'cancelled';
      t.updated = Date.now();
    }
    process.stderr.write(`fake-tasks: cancel ${taskId}\n`);
    return {};
  });
  return server;
}

process.stderr.write('fake-tasks: serving\n');
serveStdio(() => build(), { legacy: 'reject' });
