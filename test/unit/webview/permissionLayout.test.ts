/**
 * Every kind of waiting permission card is laid out the same way: what will happen first (the diff
 * of an edit, the command with its folder and sandbox line, the content of a write, the address or
 * plan of a call the agent performs itself), then the warnings that apply, then at most Allow,
 * Reject and "Allow more…"; what else the agent sent follows, labelled as the agent's.
 */
import assert from 'node:assert/strict';
import type { IntentDisplayView, PermissionView, SessionState, ToolCallView, ToolContentView } from '../../../src/acp/session/types';
import { firstSentence } from '../../../webview/session/permissionLead';
import { richState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

const diff: ToolContentView = { type: 'diff', path: '/work/demo/notes.md', oldText: 'a\n', newText: 'a\nb\n', added: 1, removed: 0 };
const text: ToolContentView = { type: 'text', text: 'I will tidy the notes.' };

/** richState with the waiting call tc-test made a `kind` call with `content` and `display`. */
function card(kind: ToolCallView['kind'], content: ToolContentView[], display: IntentDisplayView[], extra: Partial<PermissionView> = {}): SessionState {
  const s = richState();
  s.toolCalls['tc-test'] = { ...s.toolCalls['tc-test'], kind, title: `A ${kind} call`, content, locations: [], placeholder: false };
  s.permissions.p1 = { ...s.permissions.p1, display, ...extra };
  return s;
}

const KINDS: [string, SessionState, string][] = [
  ['edit', card('edit', [diff, text], [{ type: 'write', path: 'notes.md', source: 'diff' }]), '.content-diff'],
  ['delete', card('delete', [], [{ type: 'write', path: 'old.md', source: 'none' }]), '.cover-path'],
  ['move', card('move', [], [{ type: 'write', path: 'b.md', source: 'rawInput', content: { text: 'moved', totalChars: 5 } }]), 'pre.cover-content'],
  ['command', card('execute', [text], [{ type: 'command', line: 'npm test', argv: ['npm', 'test'], cwd: '/work/demo', envNames: [] }]), 'pre.command'],
  ['sandboxed command', card('execute', [], [{ type: 'command', line: 'npm test', argv: ['npm', 'test'], cwd: '/work/demo', envNames: [], sandbox: { sandboxed: true, text: 'Sandboxed when the editor runs it: can write only in /work/demo; no network; cannot read 12 credential, browser and editor folders (~/.ssh, ~/.aws, …).' } }]), 'pre.command'],
  ['fetch', card('fetch', [text], [{ type: 'tool', title: 'Fetch the docs', url: 'https://docs.example/a' }]), '.cover-url'],
  ['MCP tool', card('other', [], [{ type: 'tool', title: 'delegate_to_remote_agent' }]), '.cover-tool'],
  ['plan', card('switch_mode', [], [{ type: 'tool', title: 'Ready to code?', plan: '1. Read\n2. Fix' }]), 'pre.cover-plan'],
  ['held write', card('edit', [diff], [{ type: 'write', path: 'notes.md', source: 'diff' }], { unrequested: true }), '.content-diff'],
];

describe('waiting permission card layout, every kind', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  for (const [name, state, what] of KINDS) {
    it(`${name}: what will happen, then the warnings, then at most Allow, Reject, Allow more…; the agent's other blocks after`, () => {
      h = mount();
      h.host.send(snapshot(state));
      const c = h.$('[data-entry-id="e7"] .tool-card.waiting')!;
      const first = c.querySelector(`.perm-covers ${what}`);
      assert.ok(first, `${what} inside what allowing lets through`);
      const main = c.querySelector('.perm-main')!;
      assert.ok(first.compareDocumentPosition(main) & 4, 'before the buttons');
      const warnings = c.querySelector('.perm-warnings');
      if (warnings) assert.ok(warnings.compareDocumentPosition(main) & 4, 'the warnings before the buttons');
      const shown = Array.from(main.querySelectorAll('vscode-button')).map((b) => b.childNodes[0].textContent);
      assert.ok(shown.length <= 3 && shown[0] === 'Allow' && shown[1] === 'Reject', JSON.stringify(shown));
      // Nothing broader on show: whatever more there is waits under "Allow more…".
      assert.ok(Array.from(c.querySelectorAll<HTMLElement>('.perm-option')).every((b) => main.contains(b) || b.closest<HTMLElement>('.perm-more')!.hidden));
      const agents = c.querySelector('.agent-shown');
      if (state.toolCalls['tc-test'].content.some((x) => x.type === 'text')) {
        assert.ok(agents && main.compareDocumentPosition(agents) & 4, 'the agent\'s own words follow the buttons, labelled');
      }
    });
  }

  it('a warning is one line: its first sentence, the rest behind that line', () => {
    assert.deepEqual(firstSentence('Not shown: the value of NPM_TOKEN (40 characters). Its name says it is a credential. Allowing asks you once more.'), {
      lead: 'Not shown: the value of NPM_TOKEN (40 characters).',
      rest: 'Its name says it is a credential. Allowing asks you once more.',
    });
    assert.deepEqual(firstSentence('demo/hello.md has 2 hard links: it may be the same file as one outside the workspace.'), { lead: 'demo/hello.md has 2 hard links: it may be the same file as one outside the workspace.', rest: '' });
    h = mount();
    const s = card('execute', [], [{ type: 'command', line: 'npm test', argv: ['npm', 'test'], cwd: '/w', envNames: [] }], {
      undeclared: ['Not shown: the value of NPM_TOKEN (40 characters). Its name says it is a credential. Allowing asks you once more.'],
    });
    h.host.send(snapshot(s));
    const line = h.$('[data-entry-id="e7"] .perm-warnings details.perm-undeclared')!;
    assert.equal(line.querySelector('summary')?.textContent, 'Not shown: the value of NPM_TOKEN (40 characters).');
    assert.equal(line.querySelector('.perm-line-rest')?.textContent, 'Its name says it is a credential. Allowing asks you once more.');
    assert.equal(line.getAttribute('title'), s.permissions.p1.undeclared![0]);
  });
});
