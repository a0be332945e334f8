#!/usr/bin/env node
// A small MCP server over stdio, written with @modelcontextprotocol/server 2.x, for the host's tests.
//   --era modern   serveStdio(): answers server/discover (2026-07-28) and also the 2025 handshake
//   --era legacy   McpServer.connect(StdioServerTransport): the 2025 `initialize` handshake only
//   --delay-ms N   start serving only after N ms (a slow server, registered late)
//   --crash        print a line to stderr and exit 3 before speaking MCP
//   --description S  the description of the `add` tool (a changed catalog)
// Tools: `add` {a, b} → "a+b=<sum>"; `sleep` {ms} → waits (cancellable); `env` {name} → the variable;
// `ask` elicits {name (default "Ada"), color (titled choice), count (1..9)} and returns the answer as JSON;
// `write` {path, text} writes a file and says so, or the error code (the sandbox tests);
// `grow` registers a new tool `extra` (the server then announces tools/list_changed); `meta` returns the request's `_meta`.
//   --huge         also `huge` (a 2 MB description; returns 20 MB of text and 5,000 content blocks)
//   --junk         writes lines that are not JSON-RPC to stdout before serving
import { inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const era = opt('--era', 'modern');
const delayMs = Number(opt('--delay-ms', '0'));
const description = opt('--description', 'Adds two numbers.');

if (argv.includes('--crash')) {
  process.stderr.write('fake-mcp: cannot open database /nonexistent/db.sqlite\n');
  process.exit(3);
}

if (argv.includes('--junk')) process.stdout.write('Starting fake server v1...\n{"not": "jsonrpc"}\n\u0000\u0001 binary noise\n');

let grown = false;
function build() {
  const server = new McpServer({ name: `fake-${era}`, version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} } });
  server.registerTool('add', { description, inputSchema: z.object({ a: z.number(), b: z.number() }), annotations: { readOnlyHint: true } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: `${a}+${b}=${a + b}` }],
  }));
  if (argv.includes('--huge')) {
    server.registerTool('huge', { description: 'd'.repeat(2 * 1024 * 1024), inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'x'.repeat(20 * 1024 * 1024) }, ...Array.from({ length: 5000 }, (_, i) => ({ type: 'text', text: `block ${i}` }))],
    }));
  }
  server.registerTool('sleep', { description: 'Waits ms milliseconds.', inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
    await new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      ctx?.mcpReq?.signal?.addEventListener?.('abort', () => {
        clearTimeout(t);
        process.stderr.write('fake-mcp: sleep cancelled\n');
        reject(new Error('cancelled'));
      });
    });
    return { content: [{ type: 'text', text: `slept ${ms}` }] };
  });
  server.registerTool('env', { description: 'Returns an environment variable.', inputSchema: z.object({ name: z.string() }) }, async ({ name }) => ({
    content: [{ type: 'text', text: String(process.env[name] ?? '(unset)') }],
  }));
  server.registerTool('write', { description: 'Writes text to a file (the sandbox tests).', inputSchema: z.object({ path: z.string(), text: z.string() }) }, async ({ path: file, text }) => {
    try {
      (await import('node:fs')).writeFileSync(file, text);
      return { content: [{ type: 'text', text: `wrote ${file}` }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `error: ${err.code ?? err.message}` }] };
    }
  });
  server.registerTool('cwd', { description: 'Returns the folder the server runs in.', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: process.cwd() }],
  }));
  server.registerTool('ask', { description: 'Asks the person for a name, a colour and a count.', inputSchema: z.object({}) }, async (_args, ctx) => {
    const question = {
      mode: 'form',
      message: 'Which colour should the report use?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Your name', default: 'Ada' },
          color: { type: 'string', title: 'Colour', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
          count: { type: 'integer', title: 'Copies', minimum: 1, maximum: 9 },
        },
        required: ['color', 'count'],
      },
    };
    const done = (answer) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }] });
    // 2026-07-28: a multi round-trip request (the client answers and retries); 2025: a server→client request.
    const given = inputResponse(ctx.mcpReq.inputResponses, 'q');
    if (given.kind === 'elicit') return done(given.content ? { action: given.action, content: given.content } : { action: given.action });
    try {
      return done(await ctx.mcpReq.elicitInput(question));
    } catch (err) {
      if (!/not available on protocol revision/.test(String(err?.message))) throw err;
      return inputRequired({ inputRequests: { q: inputRequired.elicit(question) } });
    }
  });
  server.registerTool('meta', { description: 'Returns the request\'s _meta as JSON.', inputSchema: z.object({}) }, async (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq._meta ?? {}) }],
  }));
  server.registerTool('grow', { description: 'Adds the tool `extra`.', inputSchema: z.object({}) }, async () => {
    if (!grown) {
      grown = true;
      server.registerTool('extra', { description: 'Registered at run time.', inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: 'extra' }] }));
    }
    return { content: [{ type: 'text', text: 'grown' }] };
  });
  server.registerResource('readme', 'fake://readme', { mimeType: 'text/plain', description: 'A fixed text.' }, async () => ({
    contents: [{ uri: 'fake://readme', mimeType: 'text/plain', text: 'hello from the fake server' }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone.', argsSchema: z.object({ who: z.string() }) }, async ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}.` } }],
  }));
  return server;
}

setTimeout(async () => {
  process.stderr.write(`fake-mcp: serving (${era})\n`);
  if (era === 'legacy') await build().connect(new StdioServerTransport());
  else serveStdio(() => build(), { legacy: 'serve' });
}, delayMs);
