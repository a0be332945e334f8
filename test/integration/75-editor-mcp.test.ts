/**
 * The editor's own MCP server in a real VS Code: a scripted agent (the demo agent's `editor-mcp`
 * script, an MCP client) calls its diagnostics and definition tools on a TypeScript file and gets
 * what VS Code's own TypeScript support says.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, until, scenarioAgent, setAgents, workspaceDir } from './util';

describe("the editor's MCP server", () => {
  it("answers an agent's diagnostics and definition calls as VS Code's TypeScript support does", async function () {
    this.timeout(180_000);
    await setAgents([scenarioAgent('mcp-agent', 'editor-mcp')]);
    const a = await api();
    const dir = path.join(workspaceDir(), 'editor-mcp');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'a.ts');
    fs.writeFileSync(file, "export function add(a: number, b: number): number {\n  return a + b;\n}\nconst n: number = 'x';\nexport const sum = add(n, 2);\n");
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const diagnostics = await until('TypeScript diagnostics', () => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length ? d : undefined;
    }, 90_000);
    const expectedDefinition = (await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, new vscode.Position(4, 20))).map((l) => {
      const [u, r] = 'targetUri' in l ? [l.targetUri, l.targetSelectionRange ?? l.targetRange] : [l.uri, l.range];
      return { path: u.fsPath, line: r.start.line + 1, column: r.start.character + 1 };
    });
    assert.ok(expectedDefinition.length, 'VS Code finds the definition');

    const key = await a.startSession({ agentId: 'mcp-agent', cwd: dir });
    const script = { calls: [{ tool: 'diagnostics', args: { path: file } }, { tool: 'definition', args: { path: file, line: 5, column: 21 } }] };
    assert.strictEqual((await a.prompt(key, JSON.stringify(script))).stopReason, 'end_turn');
    const s = a.session(key)!;
    const notice = s.entries.find((e) => e.kind === 'notice' && /MCP servers/.test(e.text));
    assert.ok(notice?.kind === 'notice' && /given to the agent: .*editor/.test(notice.text), JSON.stringify(notice));
    const answer = s.entries.filter((e) => e.kind === 'agent').map((e) => (e.kind === 'agent' ? e.text : '')).join('\n');
    const results = answer.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { tool: string; result?: unknown; error?: unknown });
    const diag = results.find((r) => r.tool === 'diagnostics');
    assert.ok(diag?.result, answer);
    assert.deepStrictEqual(
      (diag.result as { line: number; message: string }[]).map((d) => [d.line, d.message]),
      diagnostics.map((d) => [d.range.start.line + 1, d.message]),
    );
    const def = results.find((r) => r.tool === 'definition');
    assert.deepStrictEqual((def?.result as { path: string; line: number; column: number }[]).map(({ path: p, line, column }) => ({ path: p, line, column })), expectedDefinition);
    await a.closeSession(key);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
