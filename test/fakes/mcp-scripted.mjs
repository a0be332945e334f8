#!/usr/bin/env node
// A scripted MCP server speaking raw JSON-RPC (no SDK), for what an SDK server would never send.
// Run over stdio:  node mcp-scripted.mjs [flags]      Imported: startScriptedHttp(flags) (Streamable HTTP).
//   --era legacy|modern   legacy: `server/discover` is refused (-32601) and `initialize` answered;
//                         modern: `server/discover` offers 2026-07-28 and every result has resultType
//   --bad-items           every list holds good items and bad ones (a tool whose inputSchema is not an
//                         object, a tool without a name, a prompt whose arguments are not a list, a
//                         resource without a uri, a template without a uriTemplate)
//   --exit-on-probe       exits (code 1) on any request before `initialize`, as servers on old SDKs do
//   --mrtr N              tool `stateful` answers `input_required` with only `requestState` N times
//                         (each state must come back exactly), then completes; N = -1: never completes
// Tool `break` makes the lists hold bad items from then on and announces tools/list_changed (stdio).
//   --header-tool         also a tool `routed` whose `region` argument declares x-mcp-header (SEP-2243)
//   --list-error          `tools/list` answers a JSON-RPC error (-32603 "tool registry corrupt")
//   --log FILE            appends every message received, one JSON line each
// HTTP only (startScriptedHttp): `slowTool` adds a tool `slow` that runs at once and answers 400 ms later.
import fs from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

/** The server's answers, shared by both transports. `send` delivers a message to the client. */
export function scripted(flags) {
  const era = flags.era ?? 'legacy';
  let initialized = false;
  let rounds = 0;
  const log = (m) => flags.log && fs.appendFileSync(flags.log, `${JSON.stringify(m)}\n`);
  const complete = (result) => (era === 'modern' ? { resultType: 'complete', ...result } : result);
  const lists = {
    'tools/list': () => ({
      tools: [
        { name: 'good', description: 'A good tool.', inputSchema: { type: 'object', properties: {} } },
        ...(flags.badItems ? [{ name: 'bad-schema', description: 'Its schema is a string.', inputSchema: { type: 'string' } }, { description: 'No name.', inputSchema: { type: 'object' } }] : []),
        { name: 'stateful', description: 'Needs rounds.', inputSchema: { type: 'object' } },
        ...(flags.slowTool ? [{ name: 'slow', description: 'Answers after 400 ms over HTTP (it runs at once).', inputSchema: { type: 'object', properties: {} } }] : []),
        ...(flags.headerTool ? [{ name: 'routed', description: 'Mirrors region as a header.', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }] : []),
      ],
    }),
    'prompts/list': () => ({ prompts: [{ name: 'hello' }, ...(flags.badItems ? [{ name: 'bad-prompt', arguments: 'not a list' }] : [])] }),
    'resources/list': () => ({ resources: [{ uri: 'fake://one', name: 'one' }, ...(flags.badItems ? [{ name: 'no-uri' }] : [])] }),
    'resources/templates/list': () => ({ resourceTemplates: [{ uriTemplate: 'fake://t/{id}', name: 'tpl' }, ...(flags.badItems ? [{ name: 'no-template' }] : [])] }),
  };
  /** The answer to one message, or undefined (a notification). `exit` ends the process. */
  return function handle(m, exit) {
    log(m);
    if (m.id === undefined) return undefined;
    const ok = (result) => ({ jsonrpc: '2.0', id: m.id, result });
    const fail = (code, message) => ({ jsonrpc: '2.0', id: m.id, error: { code, message } });
    if (m.method === 'initialize') {
      initialized = true;
      return ok({ protocolVersion: m.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} }, serverInfo: { name: 'scripted', version: '1' } });
    }
    if (flags.exitOnProbe && !initialized) return exit(1);
    if (m.method === 'server/discover') {
      if (era !== 'modern') return fail(-32601, 'Method not found');
      return ok({ resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, prompts: {}, resources: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1' } }, ttlMs: 0, cacheScope: 'public' });
    }
    if (m.method === 'tools/list' && flags.listError) return fail(-32603, 'tool registry corrupt');
    if (lists[m.method]) return ok(complete({ ...lists[m.method](), ...(era === 'modern' ? { ttlMs: 0, cacheScope: 'public' } : {}) }));
    if (m.method === 'tools/call' && m.params?.name === 'stateful') {
      const expected = rounds === 0 ? undefined : `state-${rounds}:{"opaque":true, "n":${rounds}}`;
      if (m.params.requestState !== expected) return fail(-32602, `requestState came back as ${JSON.stringify(m.params.requestState)}, expected ${JSON.stringify(expected)}`);
      if (flags.mrtr < 0 || rounds < flags.mrtr) {
        rounds++;
        return ok({ resultType: 'input_required', requestState: `state-${rounds}:{"opaque":true, "n":${rounds}}` });
      }
      return ok(complete({ content: [{ type: 'text', text: `done after ${rounds} rounds` }] }));
    }
    if (m.method === 'tools/call' && m.params?.name === 'break') {
      // From now on the lists hold bad items, and the server says its tools changed.
      flags.badItems = true;
      return [ok(complete({ content: [{ type: 'text', text: 'broken' }] })), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }];
    }
    if (m.method === 'tools/call') return ok(complete({ content: [{ type: 'text', text: 'good' }] }));
    if (m.method === 'ping') return ok({});
    return fail(-32601, `Method not found: ${m.method}`);
  };
}

/** Flags from the command line (or an object, when imported). */
export function parseFlags(argv) {
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return { era: opt('--era'), badItems: argv.includes('--bad-items'), exitOnProbe: argv.includes('--exit-on-probe'), mrtr: Number(opt('--mrtr') ?? 0), listError: argv.includes('--list-error'), headerTool: argv.includes('--header-tool'), log: opt('--log') };
}

/**
 * The same server over Streamable HTTP (JSON answers), with HTTP-only behaviour:
 * `discoverStatus` answers `server/discover` with that status and a JSON-RPC -32000 error body;
 * `forgetSessionAfter` N answers 404 to the N+1th request of each session (the server restarted),
 * `forgetAlways` to every request after the first session's first N.
 * @returns the URL and a close function.
 */
export async function startScriptedHttp(flags) {
  const handle = scripted(flags);
  const sessions = new Map();
  let nextSession = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      const m = JSON.parse(body);
      flags.log && fs.appendFileSync(flags.log, `${JSON.stringify({ http: { session: req.headers['mcp-session-id'] ?? null, method: m.method } })}\n`);
      if (m.method === 'server/discover' && flags.discoverStatus) {
        res.writeHead(flags.discoverStatus, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
      }
      const sid = req.headers['mcp-session-id'];
      // 2026-07-28 has no sessions; the 2025 era needs one for everything after initialize.
      if (flags.era !== 'modern' && m.method !== 'initialize' && m.method !== 'server/discover') {
        const s = sessions.get(sid);
        if (!s) return res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, error: { code: -32001, message: 'Session not found' } }));
        s.count++;
        if (flags.forgetSessionAfter !== undefined && s.count > flags.forgetSessionAfter && (flags.forgetAlways || s.n === 0)) {
          sessions.delete(sid);
          return res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, error: { code: -32001, message: 'Session not found' } }));
        }
      }
      const headers = { 'content-type': 'application/json' };
      if (m.method === 'initialize') {
        const id = `session-${nextSession}`;
        sessions.set(id, { n: nextSession++, count: 0 });
        headers['mcp-session-id'] = id;
      }
      // Over HTTP only the answer is sent (a JSON response holds one message).
      const answer = [handle(m, () => undefined)].flat()[0];
      if (!answer) return res.writeHead(202).end();
      // `slow` has run (it is logged above) and answers late: the client may meet a 404 meanwhile.
      if (m.method === 'tools/call' && m.params?.name === 'slow') return void setTimeout(() => res.writeHead(200, headers).end(JSON.stringify(answer)), 400);
      res.writeHead(200, headers).end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, close: () => new Promise((r) => server.close(() => r())) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const handle = scripted(parseFlags(process.argv.slice(2)));
  let buf = '';
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const answer = handle(JSON.parse(line), (code) => {
        process.stderr.write('scripted-mcp: a request before initialize; exiting\n');
        process.exit(code);
      });
      for (const a of answer ? [answer].flat() : []) process.stdout.write(`${JSON.stringify(a)}\n`);
    }
  });
  process.stderr.write(`scripted-mcp: serving\n`);
}
