import assert from 'node:assert/strict';
import { classifyCall, issue, issueAll, isIssued, nodeId, vouch } from '../../../src/common/commandArgs';
import { newSessionKey } from '../../../src/acp/sessionManager';

// What a `command:` link can pass: the JSON of its query, parsed (VS Code's CommandOpener).
const fromLink = (query: string): unknown[] => {
  const parsed: unknown = JSON.parse(decodeURIComponent(query));
  return Array.isArray(parsed) ? parsed : [parsed];
};

describe('command arguments (issue 16, finding 1)', () => {
  it('refuses every argument list a command: link can carry', () => {
    const key = newSessionKey();
    for (const query of [
      encodeURIComponent(JSON.stringify([key, 'p1', 'allow'])),
      JSON.stringify({ type: 'server', serverId: 'vscode-mcp.json:evil' }),
      JSON.stringify([{ type: 'server', serverId: 'vscode-mcp.json:evil' }, true]),
      JSON.stringify([{ type: 'turn', sessionKey: key, turn: 1, confirmed: true }]),
      JSON.stringify([{ $treeViewId: 'agentSwitchboard.mcp', $treeItemHandle: '0/0:evil' }]),
      JSON.stringify(['demo', '/tmp']),
      JSON.stringify([0]),
      JSON.stringify([false]),
      JSON.stringify([[]]),
      JSON.stringify([null, 'x']),
    ]) {
      const args = fromLink(query);
      assert.equal(classifyCall(args).origin, 'refused', query);
      assert.equal(classifyCall(args, true).origin, 'refused', `${query} (a tree command)`);
    }
  });

  it('refuses a structural copy of a vouched call or of an issued node', () => {
    const v = vouch(['s-1', 'p', 'o']);
    assert.equal(classifyCall([structuredClone(v)]).origin, 'refused');
    assert.equal(classifyCall([{ ...v }]).origin, 'refused');
    assert.equal(classifyCall([JSON.parse(JSON.stringify(v))]).origin, 'refused');
    const node = issue({ type: 'server', serverId: 'settings:fs' });
    assert.equal(classifyCall([{ ...node }], true).origin, 'refused');
    assert.equal(isIssued({ ...node }), false);
  });

  it('takes a view title menu\'s context for no arguments, and nothing that carries data beside it', () => {
    const ctx = { $treeViewId: 'agentSwitchboard.sessions', $focusedTreeItem: true, $selectedTreeItems: true };
    assert.deepEqual(classifyCall([ctx]), { origin: 'person', args: [] });
    assert.deepEqual(classifyCall([ctx], true), { origin: 'person', args: [] });
    assert.deepEqual(classifyCall([{ $treeViewId: 'agentSwitchboard.session' }, null]), { origin: 'person', args: [] });
    // What the Session (a webview view) title menu hands its commands, seen in the editor.
    assert.deepEqual(classifyCall([{ preserveFocus: true }]), { origin: 'person', args: [] });
    assert.equal(classifyCall([{ preserveFocus: 'yes' }]).origin, 'refused');
    for (const bad of [
      { ...ctx, sessionKey: 's-1' },
      { $treeViewId: 'x', $treeItemHandle: '0/0:evil' },
      { $treeViewId: 7 },
      { $focusedTreeItem: 'yes' },
      {},
      Object.assign(Object.create({ confirmed: true }), { $treeViewId: 'x' }),
    ]) {
      assert.equal(classifyCall([bad]).origin, 'refused', JSON.stringify(bad));
      assert.equal(classifyCall([ctx, bad]).origin, 'refused', `${JSON.stringify(bad)} beside a context`);
    }
    assert.equal(classifyCall([ctx, 'demo']).origin, 'refused');
  });

  it('lets a person run the command without arguments', () => {
    assert.deepEqual(classifyCall([]), { origin: 'person', args: [] });
    assert.deepEqual(classifyCall([undefined, undefined]), { origin: 'person', args: [] });
  });

  it('passes a vouched call with its arguments, and only once the same object', () => {
    const node = { type: 'server', serverId: 'x' };
    assert.deepEqual(classifyCall([vouch([node, true])]), { origin: 'api', args: [node, true] });
    assert.equal(classifyCall([vouch(['a']), 'extra']).origin, 'refused', 'an envelope with more arguments beside it is not ours');
  });

  it('passes an issued node alone: what a tree passes beside it (selection, JSON) is dropped', () => {
    const [a, b] = issueAll([{ id: 'a' }, { id: 'b' }]);
    assert.deepEqual(classifyCall([a, [a, b]], true), { origin: 'node', args: [a] });
    assert.deepEqual(classifyCall([b, true], true), { origin: 'node', args: [b] }, 'a confirmation flag never rides with a node');
    assert.deepEqual(classifyCall([a]), { origin: 'person', args: [] }, 'a command that is not a tree command drops the node a view title menu hands it');
    assert.deepEqual(classifyCall([a, [a, b]]), { origin: 'person', args: [] });
  });

  it('gives tree items unguessable ids that stay the same for the same node', () => {
    const one = nodeId('mcp\u0000server/settings:fs');
    assert.equal(nodeId('mcp\u0000server/settings:fs'), one);
    assert.notEqual(nodeId('mcp\u0000server/settings:git'), one);
    assert.match(one, /^[0-9a-f-]{36}$/);
  });

  it('makes session keys unguessable', () => {
    const keys = Array.from({ length: 100 }, () => newSessionKey());
    assert.equal(new Set(keys).size, 100);
    for (const k of keys) assert.match(k, /^s-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
