/**
 * The agent's changes shown in the editor itself: after a turn of the demo agent, the file it
 * edited shows each hunk with Keep / Undo above it (CodeLenses, as the editor lists them), the
 * lines it wrote highlighted and what it removed beside them; Undo of one hunk reverts only that
 * hunk, Keep takes one out of review, and a hunk the person typed into since is not offered for
 * Undo and not overwritten when undone anyway. A file the agent created is kept or undone whole.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../src/api';
import { api, freshWorkspaceDir, personEdit, runCommand, scenarioAgent, setAgents, until, workspaceDir } from './util';
import { evaluateInFrames, screenshot, setViewport } from './screenshot';

const BEFORE = `// A small module the demo agent edits.
export interface Person {
  name: string;
  age: number;
}

export function greet(p: Person): string {
  return 'Hello, ' + p.name;
}

export function isAdult(p: Person): boolean {
  return p.age >= 18;
}

export function describe(p: Person): string {
  const adult = isAdult(p) ? 'an adult' : 'a minor';
  // TODO: say more
  return p.name + ' is ' + adult;
}

export function initials(p: Person): string {
  return p.name
    .split(' ')
    .map((w) => w[0])
    .join('');
}

export const VERSION = '1.0.0';
`;
// Three hunks: a line changed (greet), a line removed (the TODO), a line changed and one added (initials).
const GREET = ['  return \'Hello, \' + p.name;', '  return `Hello, ${p.name}!`;'] as const;
const TODO = '  // TODO: say more\n';
const JOIN = ['    .join(\'\');', '    .join(\'\')\n    .toUpperCase();'] as const;
const AFTER = BEFORE.replace(GREET[0], GREET[1]).replace(TODO, '').replace(JOIN[0], JOIN[1]);

type Lens = { line: number; title: string; command: string; args: unknown[] };

/** The CodeLenses the editor has for `uri` (all providers), as plain data. */
async function lensesOf(uri: vscode.Uri): Promise<Lens[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
  return lenses.filter((l) => l.command).map((l) => ({ line: l.range.start.line, title: l.command!.title, command: l.command!.command, args: l.command!.arguments ?? [] }));
}

/** Polls the lenses until `ok` holds for them; 20 s at most. */
async function lensesWhen(uri: vscode.Uri, what: string, ok: (l: Lens[]) => boolean): Promise<Lens[]> {
  let last: Lens[] = [];
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    last = await lensesOf(uri);
    if (ok(last)) return last;
  }
  throw new Error(`timed out waiting for ${what}; lenses: ${JSON.stringify(last.map((l) => [l.line, l.title]))}`);
}

/** The lens titled `title` above 0-based line `line`. */
function lensAt(lenses: Lens[], line: number, title: string): Lens {
  const l = lenses.find((x) => x.line === line && x.title === title);
  if (!l) throw new Error(`no "${title}" lens above line ${line + 1}: ${JSON.stringify(lenses.map((x) => [x.line, x.title]))}`);
  return l;
}

/** Runs a lens's command as the editor does when it is clicked: its own command and arguments. */
const runLens = (l: Lens) => vscode.commands.executeCommand(l.command, ...l.args);

function fileChange(a: SwitchboardApi, key: string, file: string) {
  const f = a.changes(key).flatMap((t) => t.files).find((x) => x.path === file);
  if (!f) throw new Error(`no change of ${file}: ${JSON.stringify(a.changes(key)).slice(0, 1500)}`);
  return f;
}

/** The texts the editor draws after lines (decorations' `after` content), as the page computes them. */
const AFTER_TEXTS = `return [...document.querySelectorAll('.monaco-editor .view-line span')]
  .map((s) => getComputedStyle(s, '::after').content).filter((c) => c && c !== 'none' && c !== 'normal');`;

describe('the agent\'s changes inline in the editor', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' })]);
  });

  after(async () => {
    await setViewport(1400, 900);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('review.inline', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Keep / Undo above each hunk: Undo reverts only its hunk, Keep ends its review, a hunk typed into is not overwritten', async function () {
    this.timeout(180_000);
    const a = await api();
    const dir = freshWorkspaceDir('inline-review');
    const file = path.join(dir, 'person.ts');
    fs.writeFileSync(file, BEFORE);
    // A file changed within 2 s of the agent's call has an uncertain base (baselines.ts RECENT_MS).
    await new Promise((r) => setTimeout(r, 2200));
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'person.ts', content: AFTER, via: 'client' }, { path: 'made.ts', content: 'export const made = true;\n' }] }));
    const f = fileChange(a, key, file);
    assert.strictEqual(f.hunks.length, 3, JSON.stringify(f.hunks));
    assert.strictEqual(fs.readFileSync(file, 'utf8'), AFTER);

    const uri = vscode.Uri.file(file);
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    // 0-based lines of the hunks in the file as the agent left it.
    const greetLine = AFTER.split('\n').indexOf(GREET[1]);
    const todoLine = AFTER.split('\n').indexOf('  return p.name + \' is \' + adult;');
    const joinLine = AFTER.split('\n').indexOf('    .join(\'\')');
    let lenses = await lensesWhen(uri, 'Keep and Undo above each of the three hunks', (l) => l.filter((x) => x.title === 'Undo').length === 3);
    for (const [i, line] of [greetLine, todoLine, joinLine].entries()) {
      for (const title of ['Keep', 'Undo']) assert.deepStrictEqual(lensAt(lenses, line, title).args, [{ type: 'hunk', changeId: f.id, hunk: i }], `${title} of hunk ${i}`);
    }
    assert.ok(lensAt(lenses, 0, 'Keep All') && lensAt(lenses, 0, 'Undo All'), 'the file\'s own row');

    // What the agent removed is drawn beside the lines that replaced it (or where it was).
    const drawn = async () => (await evaluateInFrames<string[]>(AFTER_TEXTS)).flat().join('\n');
    for (const end = Date.now() + 20_000; !((await drawn()).includes('Hello, \' + p.name') && (await drawn()).includes('TODO: say more')); ) {
      if (Date.now() > end) assert.fail(`the removed lines are not drawn; after-texts: ${await drawn()}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    // The picture at the size a person has; the runner leaves the pointer over the text after
    // dragging the side bar, and the editor's hover there would cover part of it.
    await setViewport(1600, 1000);
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const hover = vscode.workspace.getConfiguration('editor');
    await hover.update('hover.enabled', false, vscode.ConfigurationTarget.Global);
    try {
      await screenshot('inline-review', 30000, { waitForSelector: '.codelens-decoration a:text-is("Undo")', sidebarWidth: 300 });
    } finally {
      await hover.update('hover.enabled', undefined, vscode.ConfigurationTarget.Global);
    }

    // Undo the first hunk from its lens: only it goes back, on disk and in the document.
    await runLens(lensAt(lenses, greetLine, 'Undo'));
    const undoneOne = AFTER.replace(GREET[1], GREET[0]);
    await until('the document reloaded after the undo', () => editor.document.getText() === undoneOne, 20_000);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), undoneOne, 'only the first hunk reverted on disk');
    assert.deepStrictEqual(fileChange(a, key, file).decisions, ['undone', 'pending', 'pending']);
    lenses = await lensesWhen(uri, 'the undone hunk\'s lenses gone', (l) => l.filter((x) => x.title === 'Undo').length === 2);
    assert.ok(!lenses.some((l) => l.line === greetLine && l.title === 'Undo'));

    // Keep the removal: no longer to review, and the text stays.
    const todoNow = undoneOne.split('\n').indexOf('  return p.name + \' is \' + adult;');
    await runLens(lensAt(lenses, todoNow, 'Keep'));
    assert.deepStrictEqual(fileChange(a, key, file).decisions, ['undone', 'kept', 'pending']);
    assert.strictEqual(editor.document.getText(), undoneOne);
    await lensesWhen(uri, 'the kept hunk\'s lenses gone', (l) => l.filter((x) => x.title === 'Keep').length === 1);

    // The person types into the last hunk's line: the lens no longer offers Undo, and Undo run anyway refuses.
    const upper = editor.document.getText().split('\n').indexOf('    .toUpperCase();');
    await personEdit(editor, (b) => b.insert(new vscode.Position(upper, 4), '.trim()'));
    const mine = editor.document.getText();
    lenses = await lensesWhen(uri, 'the typed-into hunk shown as changed since', (l) => l.some((x) => x.title === 'Changed since: Open Diff'));
    assert.ok(!lenses.some((l) => l.title === 'Undo'), `no Undo on a hunk changed since: ${JSON.stringify(lenses.map((l) => l.title))}`);
    const refused = await runCommand<string[]>('agentSwitchboard.review.undo', { type: 'hunk', changeId: f.id, hunk: 2 });
    assert.strictEqual(refused.length, 1, 'the undo is refused with its reason');
    assert.match(refused[0], /changed after the agent wrote them/);
    assert.strictEqual(editor.document.getText(), mine, 'the person\'s text is not overwritten');
    assert.deepStrictEqual(fileChange(a, key, file).decisions, ['undone', 'kept', 'pending']);

    // A file the agent created: kept or undone whole, from its first line.
    const made = vscode.Uri.file(path.join(dir, 'made.ts'));
    await vscode.window.showTextDocument(made, { preview: false });
    const madeLenses = await lensesWhen(made, 'the created file\'s row', (l) => l.some((x) => x.title === 'Created by the agent'));
    assert.deepStrictEqual(madeLenses.map((l) => [l.line, l.title]), [[0, 'Created by the agent'], [0, 'Keep'], [0, 'Undo']]);
    await runLens(lensAt(madeLenses, 0, 'Keep'));
    assert.strictEqual(fileChange(a, key, made.fsPath).fileDecision, 'kept');
    await lensesWhen(made, 'no lens once kept', (l) => l.length === 0);

    // Turned off, the editor shows none of it; the Changes view still lists the change.
    await vscode.workspace.getConfiguration('agentSwitchboard').update('review.inline', false, vscode.ConfigurationTarget.Global);
    await lensesWhen(uri, 'no lens with review.inline off', (l) => l.length === 0);
    assert.strictEqual(fileChange(a, key, file).fileDecision, 'pending');
    await vscode.workspace.getConfiguration('agentSwitchboard').update('review.inline', undefined, vscode.ConfigurationTarget.Global);
    // The person's typing is thrown away, so closing the editor asks nothing.
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await a.closeSession(key);
  });

  it('a file the agent deleted while it was open: its editor says so, and Undo from there writes it back', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'inline-review-deleted');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'gone.ts');
    fs.writeFileSync(file, BEFORE);
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(uri, { preview: false });
    await new Promise((r) => setTimeout(r, 2200));
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'gone.ts', delete: true }] }));
    assert.ok(!fs.existsSync(file), 'deleted by the agent');
    const lenses = await lensesWhen(uri, 'the deleted file\'s row', (l) => l.some((x) => x.title === 'Deleted by the agent'));
    const refused = (await runLens(lensAt(lenses, 0, 'Undo'))) as string[];
    assert.deepStrictEqual(refused, [], 'Undo is not refused');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), BEFORE, 'the file is back as it was');
    assert.strictEqual(fileChange(a, key, file).fileDecision, 'undone');
    await a.closeSession(key);
  });

  it('Undo All puts back the file as it was before two turns (the newer first); the arrows go from one change to the next', async function () {
    this.timeout(180_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'inline-review-all');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'person.ts');
    fs.writeFileSync(file, BEFORE);
    await new Promise((r) => setTimeout(r, 2200));
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    const first = BEFORE.replace(GREET[0], GREET[1]);
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'person.ts', content: first, via: 'client' }] }));
    const second = first.replace(JOIN[0], JOIN[1]);
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'person.ts', content: second, via: 'client' }] }));
    const turns = a.changes(key).flatMap((t) => t.files).filter((f) => f.path === file);
    assert.deepStrictEqual(turns.map((t) => t.turn), [1, 2], 'one change per turn');

    const uri = vscode.Uri.file(file);
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    const lenses = await lensesWhen(uri, 'both turns\' hunks and the file\'s row', (l) => l.filter((x) => x.title === 'Undo').length === 2 && l.some((x) => x.title === 'Undo All'));
    // The arrows: from the top to the first change, then to the second.
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    const lines = second.split('\n');
    await runLens(lensAt(lenses, 0, '$(arrow-down)'));
    assert.strictEqual(vscode.window.activeTextEditor?.selection.active.line, lines.indexOf(GREET[1]));
    await runLens(lensAt(lenses, 0, '$(arrow-down)'));
    assert.strictEqual(vscode.window.activeTextEditor?.selection.active.line, lines.indexOf('    .join(\'\')'));

    await runLens(lensAt(lenses, 0, 'Undo All'));
    await until('the file as it was before both turns', () => fs.readFileSync(file, 'utf8') === BEFORE, 20_000);
    assert.deepStrictEqual(a.changes(key).flatMap((t) => t.files).filter((f) => f.path === file).map((f) => f.fileDecision), ['undone', 'undone']);
    await lensesWhen(uri, 'no lens once all is undone', (l) => l.length === 0);
    await a.closeSession(key);
  });
});
