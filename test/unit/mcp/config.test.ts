import assert from 'node:assert/strict';
import { describeDefinition, inputReferences, parseDotMcpJson, parseServerMap, parseVscodeMcpJson, resolveTransport } from '../../../src/mcp/config';
import { telling } from '../../../src/mcp/connection';
import { renderToolResult, schemaSkeleton } from '../../../src/mcp/render';

describe('MCP server definitions', () => {
  it('reads .vscode/mcp.json with comments, stdio and HTTP servers, inputs and disabled entries', () => {
    const text = `{
      // VS Code's format
      "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
      "servers": {
        "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"] },
        "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
        "off": { "command": "x", "disabled": true },
      },
    }`;
    const r = parseVscodeMcpJson(text, '/w/.vscode/mcp.json');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.servers.map((s) => [s.id, s.transport.type, s.enabled]), [['vscode-mcp.json:fs', 'stdio', true], ['vscode-mcp.json:remote', 'http', true], ['vscode-mcp.json:off', 'stdio', false]]);
    assert.deepEqual(r.inputs, [{ type: 'promptString', id: 'token', description: 'API token', password: true }]);
    assert.deepEqual(inputReferences(r.servers[1]), ['token']);
  });

  it('reads .mcp.json and skips malformed entries with a reason; broken JSON loads nothing', () => {
    const r = parseDotMcpJson('{"mcpServers": {"mem": {"command": "npx", "args": ["@modelcontextprotocol/server-memory"]}, "bad": {"args": []}, "badurl": {"type": "http", "url": "not a url"}}}', '/w/.mcp.json');
    assert.deepEqual(r.servers.map((s) => s.name), ['mem']);
    assert.equal(r.problems.length, 2);
    assert.match(r.problems[0], /"bad" is skipped: it needs either "command"/);
    const broken = parseDotMcpJson('{"mcpServers": {', '/w/.mcp.json');
    assert.equal(broken.servers.length, 0);
    assert.match(broken.problems[0], /\.mcp\.json: .* at offset/);
    assert.match(parseServerMap([1, 2], 'settings', 'agentSwitchboard.mcpServers').problems[0], /expected an object/);
  });

  it('resolves inputs, env and the workspace folder; a missing input is an error', () => {
    const [fs] = parseServerMap({ fs: { command: 'srv', args: ['${workspaceFolder}', '--key=${input:k}'], env: { HOME_COPY: '${env:HOME}', DROP: null } } }, 'settings', 's').servers;
    const t = resolveTransport(fs.transport, { inputs: { k: 's3cret' }, env: { HOME: '/home/me' }, workspaceFolder: '/w' });
    assert.deepEqual(t, { type: 'stdio', command: 'srv', args: ['/w', '--key=s3cret'], env: { HOME_COPY: '/home/me', DROP: null }, cwd: undefined });
    assert.throws(() => resolveTransport(fs.transport, { inputs: {}, env: {} }), /input "k" has no value/);
  });
});

describe('what approving a server lets run', () => {
  it('names the command, folder and every variable, and warns about code-loading ones; HTTP shows every header with its value as written', () => {
    const [d] = parseServerMap({ s: { command: 'node', args: ['srv.mjs'], cwd: '/w', env: { NODE_OPTIONS: '--require /tmp/evil.js', X: '1', GONE: null } } }, 'vscode-mcp.json', 't').servers;
    const text = describeDefinition(d);
    assert.match(text, /runs: node srv\.mjs; in \/w; with environment NODE_OPTIONS=--require \/tmp\/evil\.js X=1 without GONE; WARNING: NODE_OPTIONS can make it load other code/);
    const [h] = parseServerMap({ h: { type: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer secret' } } }, 'settings', 't').servers;
    // Header names alone hid where secrets go (issue 16, finding 9): the values are shown as written.
    assert.equal(describeDefinition(h), 'connects to https://x.example/mcp; with headers Authorization: Bearer secret');
  });

  it('the stderr line that says what went wrong is the error, not the banner or the runtime version', () => {
    assert.equal(telling(['Server starting', "Error: Cannot find module '/x/nope.js'", '    at Module._resolveFilename', 'Node.js v20.20.2']), "Error: Cannot find module '/x/nope.js'");
    assert.equal(telling(['just a banner']), 'just a banner');
    assert.equal(telling([]), undefined);
  });
});

describe('MCP explorer rendering', () => {
  it('a schema skeleton fills required properties with defaults, enums or empty values', () => {
    assert.deepEqual(schemaSkeleton({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'string', enum: ['x', 'y'] }, c: { type: 'boolean', default: true }, d: { type: 'string' } }, required: ['a', 'b', 'c'] }), { a: 0, b: 'x', c: true });
    assert.deepEqual(schemaSkeleton({ type: 'object', properties: { o: { type: 'object', properties: { n: { type: ['integer', 'null'] } } } } }), { o: { n: 0 } });
    assert.deepEqual(schemaSkeleton(undefined), {});
  });

  it('renders text, images, links, embedded resources, errors and structured content', () => {
    const md = renderToolResult('srv', 'tool', { q: 1 }, {
      isError: true,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'mem://x', mimeType: 'text/plain', text: 'inside' } },
      ],
      structuredContent: { n: 1 },
    });
    for (const part of ['# tool on srv', '"q": 1', 'reported an error', 'hello', '(image, image/png, 3 bytes)', '[a](file:///a)', 'inside', '"n": 1']) assert.ok(md.includes(part), part);
  });
});
