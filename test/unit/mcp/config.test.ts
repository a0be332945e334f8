import assert from 'node:assert/strict';
import { inputReferences, parseDotMcpJson, parseServerMap, parseVscodeMcpJson, resolveTransport } from '../../../src/mcp/config';
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
