// OpenAI Responses dialect of the fake model server (fake-model-server.mjs routes POST /v1/responses
// here). codex-acp speaks it when its provider says `wire_api = "responses"`.
//
// What the agent sends: `tools` with `type: "function"` (JSON-schema `parameters`, e.g. codex's
// `exec_command`) and `type: "custom"` (freeform text input, e.g. codex's `apply_patch`), and an
// `input` list of items: `message` (role user / developer / assistant), `function_call`,
// `function_call_output`, `custom_tool_call`, `custom_tool_call_output`.
//
// What it gets back (streaming): `event: response.created`, `response.in_progress`, per output item
// `response.output_item.added`, its deltas (`response.output_text.delta`,
// `response.function_call_arguments.delta`, `response.custom_tool_call_input.delta`) and
// `response.output_item.done`, then `response.completed` with usage. Every event carries `type` and
// a `sequence_number`. Without `stream` the same response object comes back as JSON.
//
// The script is the server's (`nextMove`), with one addition only this dialect needs: a custom
// `apply_patch` tool is the agent's write tool, and its input is a patch in Codex's own format
// (`*** Begin Patch` / `*** Add File: <abs path>` / `+line` ... / `*** End Patch`), not JSON.
//
// The "slow" scenario streams the final text one piece every SLOW_PIECE_MS, so a test can cancel
// while the model is still answering; the stream stops when the agent drops the connection.

import path from 'node:path';

/** Pause between two pieces of text in the "slow" scenario, in milliseconds. */
export const SLOW_PIECE_MS = 500;
/** How many pieces the "slow" scenario streams (about SLOW_PIECES × SLOW_PIECE_MS in all). */
export const SLOW_PIECES = 60;

let serial = 0;
const newId = (prefix) => `${prefix}_fake${(++serial).toString(36).padStart(6, '0')}`;

/** Splits text at word boundaries into about `parts` pieces, so the agent sees real streaming. */
function pieces(text, parts) {
  const words = text.split(/(?<= )/);
  const per = Math.max(1, Math.ceil(words.length / parts));
  const out = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

/**
 * What the agent offered and how far the turn has come.
 * @returns `{tools: {name, schema, custom}[], toolResults, wantsJson}`; `toolResults` counts the
 *   tool outputs after the person's last message.
 */
export function readResponses(body) {
  const tools = (body.tools ?? [])
    .filter((t) => (t.type === 'function' || t.type === 'custom') && t.name)
    .map((t) => ({ name: t.name, schema: t.parameters, custom: t.type === 'custom' }));
  const input = Array.isArray(body.input) ? body.input : [{ type: 'message', role: 'user', content: String(body.input ?? '') }];
  let lastHuman = -1;
  input.forEach((item, i) => {
    if ((item.type ?? 'message') === 'message' && item.role === 'user') lastHuman = i;
  });
  const toolResults = input.slice(lastHuman + 1).filter((item) => /_call_output$/.test(item.type ?? '')).length;
  const wantsJson = Boolean(body.text?.format && body.text.format.type !== 'text') || /json/i.test(String(body.instructions ?? ''));
  return { tools, toolResults, wantsJson };
}

/** A patch in Codex's apply_patch format that creates `file` with `content`. */
export function addFilePatch(file, content) {
  const lines = content.replace(/\n$/, '').split('\n').map((line) => `+${line}`);
  return ['*** Begin Patch', `*** Add File: ${file}`, ...lines, '*** End Patch', ''].join('\n');
}

/**
 * The model's move for one Responses request: the shared script (`nextMove`), except that the
 * write step goes to `apply_patch` when the agent offers it.
 * @param {object} seen what {@link readResponses} read
 * @param {object} script `{scenario, workspace, fileName, fileContent, nextMove}` from the server
 */
export function responsesMove(seen, { scenario, workspace, fileName, fileContent, nextMove }) {
  const patch = seen.tools.find((t) => t.name === 'apply_patch');
  if (scenario === 'write-shell' && seen.toolResults === 0 && patch) {
    const text = addFilePatch(path.join(workspace, fileName), fileContent);
    return patch.custom
      ? { type: 'tool', name: patch.name, custom: true, input: text }
      : { type: 'tool', name: patch.name, input: { [Object.keys(patch.schema?.properties ?? {})[0] ?? 'input']: text } };
  }
  return nextMove({ tools: seen.tools, toolResults: seen.toolResults, scenario, workspace, wantsJson: seen.wantsJson });
}

/**
 * Answers one `POST /v1/responses` with `move`, streamed when the request asks for it.
 * @param {import('node:http').ServerResponse} res
 * @param {object} body the request body
 * @param {object} move `{type: 'tool', name, input, custom?}`, `{type: 'text', text}` or `{type: 'aux', text}`
 * @param {{slow?: boolean}} [pace] stream text slowly (the "slow" scenario)
 */
export function answerResponses(res, body, move, pace = {}) {
  const model = body.model ?? 'gpt-fake';
  let item;
  if (move.type === 'tool' && move.custom) {
    item = { type: 'custom_tool_call', id: newId('ctc'), call_id: newId('call'), name: move.name, input: move.input, status: 'completed' };
  } else if (move.type === 'tool') {
    item = { type: 'function_call', id: newId('fc'), call_id: newId('call'), name: move.name, arguments: JSON.stringify(move.input), status: 'completed' };
  } else {
    item = { type: 'message', id: newId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: move.text, annotations: [] }] };
  }
  const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 };
  const response = { id: newId('resp'), object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'completed', output: [item], usage };

  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(response));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let sequence = 0;
  const send = (type, fields) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  const started = { ...response, status: 'in_progress', output: [], usage: null };
  send('response.created', { response: started });
  send('response.in_progress', { response: started });
  const output_index = 0;
  const finish = () => {
    send('response.output_item.done', { output_index, item });
    send('response.completed', { response });
    res.end();
  };

  if (item.type === 'function_call') {
    send('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
    // Arguments arrive as fragments that only parse once joined.
    const cut = Math.floor(item.arguments.length / 2);
    for (const delta of [item.arguments.slice(0, cut), item.arguments.slice(cut)]) send('response.function_call_arguments.delta', { item_id: item.id, output_index, delta });
    send('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
    return finish();
  }
  if (item.type === 'custom_tool_call') {
    send('response.output_item.added', { output_index, item: { ...item, input: '', status: 'in_progress' } });
    send('response.custom_tool_call_input.delta', { item_id: item.id, output_index, delta: item.input });
    send('response.custom_tool_call_input.done', { item_id: item.id, output_index, input: item.input });
    return finish();
  }

  const text = item.content[0].text;
  const where = { item_id: item.id, output_index, content_index: 0 };
  send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
  send('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [] } });
  const endText = (full) => {
    send('response.output_text.done', { ...where, text: full, logprobs: [] });
    send('response.content_part.done', { ...where, part: { type: 'output_text', text: full, annotations: [] } });
    finish();
  };
  if (!pace.slow || move.type !== 'text') {
    for (const delta of pieces(text, 4)) send('response.output_text.delta', { ...where, delta, logprobs: [] });
    return endText(text);
  }
  // Slow: one piece every SLOW_PIECE_MS; stopped as soon as the agent hangs up (its cancel).
  let sent = 0;
  let full = '';
  const timer = setInterval(() => {
    if (res.destroyed || res.writableEnded) return clearInterval(timer);
    if (sent === SLOW_PIECES) {
      clearInterval(timer);
      item.content[0].text = full;
      return endText(full);
    }
    const delta = `Thinking slowly (${sent + 1}). `;
    full += delta;
    sent++;
    send('response.output_text.delta', { ...where, delta, logprobs: [] });
  }, SLOW_PIECE_MS);
  res.on('close', () => clearInterval(timer));
}
