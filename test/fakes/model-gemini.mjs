// Gemini API dialect of the fake model server (fake-model-server.mjs routes
// POST /v1beta/models/<model>:streamGenerateContent | :generateContent | :countTokens here).
// gemini-cli speaks it when GOOGLE_GEMINI_BASE_URL points at the server.
//
// What the agent sends: `contents` (role `user` / `model`, each with `parts`: `text`,
// `functionCall`, `functionResponse`), `tools[].functionDeclarations` (each with a JSON schema in
// `parametersJsonSchema`, older versions `parameters`), `systemInstruction` and `generationConfig`
// (`responseMimeType: application/json` for its side requests: model routing, next speaker).
//
// What it gets back: `streamGenerateContent?alt=sse` is a stream of `data: <GenerateContentResponse>`
// lines (no `event:` names, no terminator), each with `candidates[0].content.parts` and the last
// with `finishReason: "STOP"` and `usageMetadata`; `generateContent` is the same object as one JSON
// answer; `countTokens` is `{totalTokens}`.
//
// The script is the server's (`nextMove`). The "slow" scenario streams the final text one piece
// every SLOW_PIECE_MS, so a test can cancel while the model is still answering; the stream stops
// when the agent drops the connection.

/** Pause between two pieces of text in the "slow" scenario, in milliseconds. */
export const SLOW_PIECE_MS = 500;
/** How many pieces the "slow" scenario streams (about SLOW_PIECES × SLOW_PIECE_MS in all). */
export const SLOW_PIECES = 60;

/** `/v1beta/models/<model>:<operation>` → `{model, op}`, or undefined for any other path. */
export function geminiRoute(pathname) {
  const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(pathname);
  return m ? { model: decodeURIComponent(m[1]), op: m[2] } : undefined;
}

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
 * @returns `{tools: {name, schema}[], toolResults, wantsJson}`; `toolResults` counts the
 *   `functionResponse` parts after the person's last message (a user turn with no function response).
 */
export function readGemini(body) {
  const tools = [];
  for (const t of body.tools ?? []) {
    for (const fd of t.functionDeclarations ?? []) if (fd.name) tools.push({ name: fd.name, schema: fd.parametersJsonSchema ?? fd.parameters });
  }
  const contents = body.contents ?? [];
  const responsesIn = (c) => (c.parts ?? []).filter((p) => p.functionResponse).length;
  let lastHuman = -1;
  contents.forEach((c, i) => {
    if (c.role === 'user' && responsesIn(c) === 0) lastHuman = i;
  });
  let toolResults = 0;
  for (const c of contents.slice(lastHuman + 1)) toolResults += responsesIn(c);
  const wantsJson = body.generationConfig?.responseMimeType === 'application/json';
  return { tools, toolResults, wantsJson };
}

/**
 * The text of a side request's answer. gemini-cli parses its JSON side requests against its own
 * schemas (the model router wants `model_choice`, the next-speaker check `next_speaker`), so the
 * JSON answer carries every field any of them reads; the person is always the next speaker.
 */
function auxText(wantsJson, text) {
  if (!wantsJson) return text;
  return JSON.stringify({ title: 'Fake session title', isNewTopic: true, reasoning: 'scripted', model_choice: 'flash', next_speaker: 'user' });
}

/**
 * Answers one Gemini request with `move`.
 * @param {import('node:http').ServerResponse} res
 * @param {{model: string, op: string}} route what {@link geminiRoute} read from the path
 * @param {object} seen what {@link readGemini} read from the body
 * @param {object} move `{type: 'tool', name, input}`, `{type: 'text', text}` or `{type: 'aux', text}`
 * @param {{slow?: boolean}} [pace] stream text slowly (the "slow" scenario)
 */
export function answerGemini(res, route, seen, move, pace = {}) {
  const json = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (route.op === 'countTokens') return json(200, { totalTokens: 100 });
  const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 };
  const answer = (parts, last) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: route.model,
  });
  const text = move.type === 'aux' ? auxText(seen.wantsJson, move.text) : move.text;
  if (route.op === 'generateContent') {
    const parts = move.type === 'tool' ? [{ functionCall: { name: move.name, args: move.input } }] : [{ text }];
    return json(200, answer(parts, true));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (value) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  if (move.type === 'tool') {
    send(answer([{ functionCall: { name: move.name, args: move.input } }], true));
    return res.end();
  }
  const slow = pace.slow && move.type === 'text';
  const chunks = slow ? Array.from({ length: SLOW_PIECES }, (_, i) => `${i === 0 ? '' : ' '}part ${i + 1} of a slow answer.`) : pieces(text, 4);
  if (!slow) {
    chunks.forEach((t, i) => send(answer([{ text: t }], i === chunks.length - 1)));
    return res.end();
  }
  // One piece now, the rest paced; the agent dropping the request (its Stop) ends the stream.
  let i = 0;
  const next = () => {
    send(answer([{ text: chunks[i] }], i === chunks.length - 1));
    if (++i === chunks.length) return res.end();
    timer = setTimeout(next, SLOW_PIECE_MS);
  };
  let timer;
  res.on('close', () => clearTimeout(timer));
  next();
}
