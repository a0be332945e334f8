/**
 * The editor's own MCP server in a real VS Code: a scripted agent (the demo agent's `editor-mcp`
 * script, an MCP client) calls its diagnostics and definition tools on a TypeScript file and gets
 * what VS Code's own TypeScript support says; documents outside the workspace folders (also through
 * a symlink) and untitled ones are never named in its answers.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
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
    // The editor's own server alone is no news (no line in the thread); among others it is named.
    assert.ok(!notice || (notice.kind === 'notice' && /given to the agent: .*editor/.test(notice.text)), JSON.stringify(notice));
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

  it('never names a document outside the workspace folders, through a symlink, or untitled (selection, open documents, diagnostics)', async function () {
    this.timeout(180_000);
    await setAgents([scenarioAgent('mcp-agent', 'editor-mcp')]);
    const a = await api();
    const dir = path.join(workspaceDir(), 'editor-mcp-confine');
    fs.mkdirSync(dir, { recursive: true });
    const outsideDir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-outside-'));
    const outside = path.join(outsideDir, 'secret.ts');
    fs.writeFileSync(outside, "const outsideSecret: number = 'not a number';\n");
    const link = path.join(dir, 'link.ts');
    fs.rmSync(link, { force: true });
    fs.symlinkSync(outside, link);
    const inside = path.join(dir, 'inside.ts');
    fs.writeFileSync(inside, "const insideError: number = 'x';\n");
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(inside)), { preview: false });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(link)), { preview: false });
    const untitled = await vscode.workspace.openTextDocument({ content: 'untitled secret', language: 'plaintext' });
    await vscode.window.showTextDocument(untitled, { preview: false });
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(outside)), { preview: false });
    editor.selection = new vscode.Selection(0, 0, 0, 20);
    // The editor itself knows the outside file's problems: the server must not pass them on.
    await until('TypeScript diagnostics of the outside file', () => vscode.languages.getDiagnostics(vscode.Uri.file(outside)).length > 0 || undefined, 90_000);
    await until('TypeScript diagnostics of the inside file', () => vscode.languages.getDiagnostics(vscode.Uri.file(inside)).length > 0 || undefined, 90_000);

    const key = await a.startSession({ agentId: 'mcp-agent', cwd: dir });
    const script = { calls: [{ tool: 'selection' }, { tool: 'open_documents' }, { tool: 'diagnostics' }, { tool: 'diagnostics', args: { path: link } }, { tool: 'document_symbols', args: { path: outside } }] };
    assert.strictEqual((await a.prompt(key, JSON.stringify(script))).stopReason, 'end_turn');
    const answer = a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => (e.kind === 'agent' ? e.text : '')).join('\n');
    const results = answer.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { tool: string; result?: unknown; error?: unknown });
    assert.strictEqual(results.length, 5, answer);
    // A null result arrives as the text "null" (the demo agent reads structured content, else the text).
    assert.ok(results[0].result === null || JSON.stringify(results[0].result) === '[{"type":"text","text":"null"}]', `selection: ${answer}`);
    const open = (results[1].result as { path: string }[]).map((d) => d.path);
    assert.ok(open.includes(inside), `the inside document is listed: ${answer}`);
    assert.deepStrictEqual(open.filter((p) => p !== inside && !p.startsWith(workspaceDir() + path.sep)), [], `only workspace files: ${answer}`);
    assert.ok(!open.includes(link) && !open.includes(outside), `no outside document, also not through the symlink: ${answer}`);
    const diag = results[2].result as { path: string; message: string }[];
    assert.ok(diag.some((d) => d.path === inside), `the inside problems are given: ${answer}`);
    assert.ok(diag.every((d) => d.path !== outside && d.path !== link && !/outsideSecret/.test(d.message)), `no outside problems: ${answer}`);
    assert.ok(results[3].error && results[4].error, `naming the link or the outside file is refused: ${answer}`);
    assert.doesNotMatch(answer, /untitled secret|not a number/);
    await a.closeSession(key);
    // The untitled document has unsaved text: reverted first, so closing asks nothing.
    await vscode.window.showTextDocument(untitled);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(link, { force: true });
    fs.rmSync(outsideDir, { recursive: true, force: true });
  });
});
