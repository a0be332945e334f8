// Fake model server for offline tests of real ACP agents (Node 20, no dependencies).
//
// Real agents (claude-code-acp, opencode, ...) are pointed at this server instead of a model API.
// It plays a scripted "model" and speaks four dialects, streaming (SSE) and not:
//   - Anthropic Messages:        POST /v1/messages, POST /v1/messages/count_tokens
//   - OpenAI Chat Completions:   POST /v1/chat/completions (tool_calls deltas, then [DONE])
//   - OpenAI Responses:          POST /v1/responses (model-openai-responses.mjs)
//   - Gemini:                    POST /v1beta/models/<m>:streamGenerateContent?alt=sse (model-gemini.mjs)
// It listens on 127.0.0.1 only, on an ephemeral port unless told otherwise.
//
// It is also the agents' HTTP(S) proxy (HTTP_PROXY/HTTPS_PROXY point here), so any attempt to
// reach the internet shows up as an absolute-URI request or a CONNECT: both are refused with 403
// and recorded in `stray`, which tests can assert on.
//
// The script ("write-shell" scenario), decided per request from the conversation so far:
//   no tool result since the person's last message  -> call the agent's write tool for hello.txt
//   one tool result                                   -> call the agent's shell tool with SHELL_CMD
//   more                                              -> stream FINAL_TEXT and end the turn
// Requests that offer no tools at all (titles, topic classifiers, summaries) get a short answer.
// The "text" scenario skips the tools and answers FINAL_TEXT straight away. The "slow" scenario
// answers text too, paced (one piece every half second for half a minute) where the dialect
// implements it (OpenAI Responses, Gemini), so a test can cancel mid-turn.
//
// Standalone: node test/fakes/fake-model-server.mjs --workspace DIR [--port N] [--scenario S] [--log FILE]

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerResponses, readResponses, responsesMove } from './model-openai-responses.mjs';
import { answerGemini, geminiRoute, readGemini } from './model-gemini.mjs';

/** File the scripted model asks the agent to write (relative to the workspace). */
export const FILE_NAME = 'hello.txt';
/** Content of that file. */
export const FILE_CONTENT = 'Hello from the fake model!\nThis file was written through ACP.\n';
/** Shell command the scripted model asks the agent to run. */
export const SHELL_CMD = 'echo ACP_SHELL_OK > shell-marker.txt && cat shell-marker.txt && ls';
/** Final answer, streamed in several pieces. */
export const FINAL_TEXT =
  'Done. I created hello.txt and ran a shell command. This answer is streamed in several chunks.';
/** Known scenarios. */
export const SCENARIOS = ['write-shell', 'text', 'slow'];

// ------------------------------------------------------------------------------------------------
// The scripted "model": which move to make, independent of the API dialect.

// Tool names differ per agent; the first match wins. MCP-style prefixes (mcp__acp__Write) are
// accepted too, because claude-code-acp exposes its ACP-backed tools that way.
const WRITE_TOOLS = ['Write', 'write_file', 'write', 'create_file', 'Edit', 'edit'];
const SHELL_TOOLS = ['Bash', 'bash', 'shell', 'run_shell_command', 'shell_command', 'exec_command'];

function findTool(tools, wanted) {
  for (const name of wanted) {
    const exact = tools.find((t) => t.name === name);
    if (exact) return exact;
  }
  for (const name of wanted) {
    const prefixed = tools.find((t) => t.name.endsWith(`__${name}`) || t.name.endsWith(`.${name}`));
    if (prefixed) return prefixed;
  }
  return undefined;
}

const propertiesOf = (schema) => schema?.properties ?? {};
const firstKey = (props, candidates, fallback) => candidates.find((k) => k in props) ?? fallback;

// Fill in whatever else the tool's schema requires, with values no validator objects to.
function completeRequired(schema, input) {
  const props = propertiesOf(schema);
  for (const key of schema?.required ?? []) {
    if (key in input) continue;
    const prop = props[key] ?? {};
    if (prop.default !== undefined) input[key] = prop.default;
    else if (prop.type === 'number' || prop.type === 'integer') input[key] = /timeout/i.test(key) ? 60000 : 0;
    else if (prop.type === 'boolean') input[key] = false;
    else if (prop.type === 'array') input[key] = [];
    else if (prop.type === 'object') input[key] = {};
    else input[key] = '';
  }
  return input;
}

function writeInput(tool, workspace) {
  const props = propertiesOf(tool.schema);
  const input = {
    [firstKey(props, ['file_path', 'filePath', 'path', 'absolute_path', 'filename'], 'file_path')]: path.join(workspace, FILE_NAME),
    [firstKey(props, ['content', 'contents', 'text', 'file_text'], 'content')]: FILE_CONTENT,
  };
  return completeRequired(tool.schema, input);
}

function shellInput(tool, workspace) {
  const props = propertiesOf(tool.schema);
  const key = firstKey(props, ['command', 'cmd'], 'command');
  const input = { [key]: props[key]?.type === 'array' ? ['bash', '-lc', SHELL_CMD] : SHELL_CMD };
  if ('description' in props) input.description = 'Print a marker and list the workspace';
  if ('workdir' in props) input.workdir = workspace;
  return completeRequired(tool.schema, input);
}

/**
 * The model's next move: `{type: 'tool', name, input}`, `{type: 'text', text}` or
 * `{type: 'aux', text}` (a side request that offered no tools).
 */
function nextMove({ tools, toolResults, scenario, workspace, wantsJson }) {
  if (tools.length === 0) {
    // Title/topic helpers: some parse JSON, others take plain text.
    const text = wantsJson
      ? JSON.stringify({ title: 'Fake session title', isNewTopic: true })
      : 'Fake session title';
    return { type: 'aux', text };
  }
  if (scenario === 'write-shell') {
    const write = toolResults === 0 ? findTool(tools, WRITE_TOOLS) : undefined;
    if (write) return { type: 'tool', name: write.name, input: writeInput(write, workspace) };
    const shell = toolResults <= 1 ? findTool(tools, SHELL_TOOLS) : undefined;
    if (shell) return { type: 'tool', name: shell.name, input: shellInput(shell, workspace) };
  }
  return { type: 'text', text: FINAL_TEXT };
}

/** Splits text at word boundaries into about `parts` pieces, so clients see real streaming. */
function pieces(text, parts = 4) {
  const words = text.split(/(?<= )/);
  const per = Math.max(1, Math.ceil(words.length / parts));
  const out = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

let serial = 0;
const newId = (prefix) => `${prefix}_fake${(++serial).toString(36).padStart(6, '0')}`;

// ------------------------------------------------------------------------------------------------
// Anthropic Messages dialect

function readAnthropic(body) {
  const tools = (body.tools ?? []).filter((t) => t.name).map((t) => ({ name: t.name, schema: t.input_schema }));
  const messages = body.messages ?? [];
  const blocksOf = (m) => (Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? '') }]);
  // The person's last message is the last user message that is not only tool results.
  let lastHuman = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !blocksOf(m).some((b) => b.type === 'tool_result')) lastHuman = i;
  });
  let toolResults = 0;
  for (const m of messages.slice(lastHuman + 1)) toolResults += blocksOf(m).filter((b) => b.type === 'tool_result').length;
  return { tools, toolResults, wantsJson: /json/i.test(JSON.stringify(body.system ?? '')) };
}

function answerAnthropic(res, body, move) {
  const model = body.model ?? 'claude-fake';
  const id = newId('msg');
  const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block =
    move.type === 'tool'
      ? { type: 'tool_use', id: newId('toolu'), name: move.name, input: move.input }
      : { type: 'text', text: move.text };
  const stopReason = move.type === 'tool' ? 'tool_use' : 'end_turn';

  if (!body.stream) {
    return sendJson(res, 200, {
      id, type: 'message', role: 'assistant', model, content: [block],
      stop_reason: stopReason, stop_sequence: null, usage,
    });
  }
  const events = openSse(res);
  events.send('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  events.send('ping', { type: 'ping' });
  if (block.type === 'text') {
    events.send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const text of pieces(block.text)) {
      events.send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    }
  } else {
    // Tool input arrives as partial JSON fragments that only parse once joined.
    events.send('content_block_start', {
      type: 'content_block_start', index: 0,
      content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
    });
    const json = JSON.stringify(block.input);
    const cut = Math.floor(json.length / 2);
    for (const partial_json of [json.slice(0, cut), json.slice(cut)]) {
      events.send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } });
    }
  }
  events.send('content_block_stop', { type: 'content_block_stop', index: 0 });
  events.send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
  events.send('message_stop', { type: 'message_stop' });
  events.end();
}

// ------------------------------------------------------------------------------------------------
// OpenAI Chat Completions dialect

function readChat(body) {
  const tools = (body.tools ?? [])
    .filter((t) => t.function?.name)
    .map((t) => ({ name: t.function.name, schema: t.function.parameters }));
  const messages = body.messages ?? [];
  let lastHuman = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastHuman = i;
  });
  const toolResults = messages.slice(lastHuman + 1).filter((m) => m.role === 'tool').length;
  const wantsJson = Boolean(body.response_format) || /json/i.test(JSON.stringify(messages.filter((m) => m.role === 'system')));
  return { tools, toolResults, wantsJson };
}

function answerChat(res, body, move) {
  const id = newId('chatcmpl');
  const model = body.model ?? 'gpt-fake';
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
  const call =
    move.type === 'tool'
      ? { id: newId('call'), type: 'function', function: { name: move.name, arguments: JSON.stringify(move.input) } }
      : undefined;
  const finish = call ? 'tool_calls' : 'stop';

  if (!body.stream) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: move.text };
    return sendJson(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const events = openSse(res);
  const chunk = (delta, finishReason = null) =>
    events.data({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  chunk({ role: 'assistant', content: '' });
  if (call) {
    // First delta names the call; later deltas only append to its arguments (matched by index).
    const args = call.function.arguments;
    const cut = Math.floor(args.length / 2);
    chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, cut) } }] });
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] });
  } else {
    for (const content of pieces(move.text)) chunk({ content });
  }
  chunk({}, finish);
  if (body.stream_options?.include_usage) events.data({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  events.raw('data: [DONE]\n\n');
  events.end();
}

// ------------------------------------------------------------------------------------------------
// HTTP plumbing

function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function openSse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return {
    send: (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
    data: (data) => res.write(`data: ${JSON.stringify(data)}\n\n`),
    raw: (text) => res.write(text),
    end: () => res.end(),
  };
}

const SECRET_HEADERS = ['authorization', 'x-api-key', 'api-key', 'proxy-authorization'];
function redactHeaders(headers) {
  const out = { ...headers };
  for (const name of SECRET_HEADERS) if (out[name]) out[name] = `<redacted ${String(out[name]).length} chars>`;
  return out;
}

/**
 * Starts the fake model server on 127.0.0.1.
 *
 * @param {object} options
 * @param {string} options.workspace absolute directory the scripted tool calls point into
 * @param {string} [options.scenario] "write-shell" (default) or "text"
 * @param {string} [options.logFile] JSONL file receiving every request (secrets redacted)
 * @param {number} [options.port] port to listen on; 0 (default) picks a free one
 */
export async function startFakeModelServer({ workspace: firstWorkspace, scenario = 'write-shell', logFile, port = 0 } = {}) {
  if (!firstWorkspace || !path.isAbsolute(firstWorkspace)) throw new Error('startFakeModelServer: workspace must be an absolute path');
  // Where the scripted tool calls point; a test may move it (a session in a worktree made later).
  let workspace = firstWorkspace;
  if (!SCENARIOS.includes(scenario)) throw new Error(`startFakeModelServer: unknown scenario "${scenario}"`);
  const requests = [];
  const stray = [];
  const log = (entry) => {
    if (logFile) fs.appendFileSync(logFile, `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  };
  let self = '';

  const refuse = (res, method, target) => {
    stray.push(`${method} ${target}`);
    log({ kind: 'stray-egress', method, target });
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('egress blocked by the fake model server\n');
  };

  const server = http.createServer((req, res) => {
    req.socket.on('error', () => undefined);
    // An absolute URI means a client used us as its proxy for some other host.
    if (/^[a-z]+:\/\//i.test(req.url ?? '') && !req.url.startsWith(self)) return refuse(res, req.method, req.url);
    const url = new URL(req.url ?? '/', self);
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        body = { unparsed: text };
      }
      log({ kind: 'request', method: req.method, path: url.pathname, headers: redactHeaders(req.headers), body });
      const record = { method: req.method, path: url.pathname, model: body.model, stream: Boolean(body.stream) };
      requests.push(record);
      try {
        route(req.method, url.pathname, body, res, record);
      } catch (error) {
        log({ kind: 'error', error: String(error?.stack ?? error) });
        sendJson(res, 500, { error: { type: 'fake_server_error', message: String(error) } });
      }
    });
  });

  function route(method, pathname, body, res, record) {
    if (method === 'POST' && pathname.endsWith('/messages/count_tokens')) {
      record.api = 'anthropic-count-tokens';
      return sendJson(res, 200, { input_tokens: 100 });
    }
    if (method === 'POST' && pathname.endsWith('/messages')) {
      const seen = readAnthropic(body);
      const move = nextMove({ ...seen, scenario, workspace });
      Object.assign(record, { api: 'anthropic', tools: seen.tools.map((t) => t.name), toolResults: seen.toolResults, move: move.type, tool: move.name });
      return answerAnthropic(res, body, move);
    }
    if (method === 'POST' && pathname.endsWith('/chat/completions')) {
      const seen = readChat(body);
      const move = nextMove({ ...seen, scenario, workspace });
      Object.assign(record, { api: 'openai-chat', tools: seen.tools.map((t) => t.name), toolResults: seen.toolResults, move: move.type, tool: move.name });
      return answerChat(res, body, move);
    }
    if (method === 'POST' && pathname.endsWith('/responses')) {
      const seen = readResponses(body);
      const move = responsesMove(seen, { scenario, workspace, fileName: FILE_NAME, fileContent: FILE_CONTENT, nextMove });
      Object.assign(record, { api: 'openai-responses', tools: seen.tools.map((t) => t.name), toolResults: seen.toolResults, move: move.type, tool: move.name });
      return answerResponses(res, body, move, { slow: scenario === 'slow' });
    }
    const gemini = method === 'POST' ? geminiRoute(pathname) : undefined;
    if (gemini) {
      const seen = readGemini(body);
      const move = nextMove({ ...seen, scenario, workspace });
      Object.assign(record, { api: `gemini-${gemini.op}`, model: gemini.model, tools: seen.tools.map((t) => t.name), toolResults: seen.toolResults, move: move.type, tool: move.name });
      return answerGemini(res, gemini, seen, move, { slow: scenario === 'slow' });
    }
    if (method === 'GET' && pathname.endsWith('/models')) {
      record.api = 'models';
      return sendJson(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
    }
    record.api = 'unhandled';
    log({ kind: 'unhandled', method, path: pathname });
    sendJson(res, 404, { error: { type: 'not_found_error', message: `fake model server: no route for ${method} ${pathname}` } });
  }

  // HTTPS through a proxy starts with CONNECT host:443: refuse it before any TLS happens.
  server.on('connect', (req, socket) => {
    socket.on('error', () => undefined);
    stray.push(`CONNECT ${req.url}`);
    log({ kind: 'stray-egress', method: 'CONNECT', target: req.url });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actualPort = server.address().port;
  self = `http://127.0.0.1:${actualPort}`;
  return {
    url: self,
    port: actualPort,
    stray,
    requests,
    setWorkspace: (dir) => {
      if (!dir || !path.isAbsolute(dir)) throw new Error('setWorkspace: an absolute path');
      workspace = dir;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ------------------------------------------------------------------------------------------------
// Standalone use

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const option = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
  };
  const workspace = path.resolve(option('--workspace', process.cwd()));
  const logFile = option('--log');
  startFakeModelServer({
    workspace,
    port: Number(option('--port', '0')),
    scenario: option('--scenario', 'write-shell'),
    logFile: logFile && path.resolve(logFile),
  }).then(
    (fake) => {
      console.log(fake.url);
      const stop = () => fake.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (error) => {
      console.error(String(error?.message ?? error));
      process.exit(1);
    },
  );
}
