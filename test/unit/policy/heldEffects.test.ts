/**
 * The pure parts of asking at the effect (issue 19): the settings a workspace may only tighten, the
 * approval bound to one held request, the card built from the request itself, and which agent
 * modes say they will not ask.
 */
import assert from 'node:assert/strict';
import { mergePolicy } from '../../../src/config/settingsLayers';
import { ApprovalStore, decide, sameEffect, type PolicyDefaults } from '../../../src/policy/gate';
import { sha256, type CommandEffect, type Intent, type WriteEffect } from '../../../src/policy/intent';
import { heldCommandCard, heldRefusal, heldWriteCard, isCredentialName, unshowable } from '../../../src/acp/heldEffects';
import { autonomousMode } from '../../../src/acp/session/autonomy';

const ws = (value: unknown) => [{ where: 'workspace settings', value }];
const who = { sessionId: 's', agentId: 'a' };
const write = (content: string, base: string | null = 'old\n'): WriteEffect => ({ type: 'write', path: 'src/a.ts', contentSha256: [sha256(content)], baseSha256: base === null ? null : sha256(base) });
const command = (over: Partial<CommandEffect> = {}): CommandEffect => ({ type: 'command', command: 'npm', args: ['test'], cwd: '/w', envNames: [], ...over });
const intent = (e: WriteEffect | CommandEffect): Intent => ({ ...who, toolCallId: 'editor-effect-1', kind: e.type === 'write' ? 'edit' : 'execute', effects: [e] });
const ASK: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false };

describe('asking at the effect: settings, the bound approval, the card (issue 19)', () => {
  it('unrequestedEffects defaults to ask; a workspace may turn it into refuse and shorten the wait, never the other way', () => {
    assert.equal(mergePolicy(undefined, []).value.unrequestedEffects, 'ask');
    assert.equal(mergePolicy(undefined, []).value.unrequestedEffectMinutes, 10);
    const tight = mergePolicy({}, ws({ unrequestedEffects: 'refuse', unrequestedEffectMinutes: 2 }));
    assert.equal(tight.value.unrequestedEffects, 'refuse');
    assert.equal(tight.value.unrequestedEffectMinutes, 2);
    assert.deepEqual(tight.tightened, ['unrequestedEffects: ask → refuse (workspace settings)', 'unrequestedEffectMinutes: 10 → 2 (workspace settings)']);
    const loose = mergePolicy({ unrequestedEffects: 'refuse', unrequestedEffectMinutes: 5 }, ws({ unrequestedEffects: 'ask', unrequestedEffectMinutes: 60 }));
    assert.equal(loose.value.unrequestedEffects, 'refuse');
    assert.equal(loose.value.unrequestedEffectMinutes, 5);
    assert.equal(loose.ignored.length, 2);
    const bad = mergePolicy({}, ws({ unrequestedEffects: 'allow', unrequestedEffectMinutes: -1 }));
    assert.equal(bad.value.unrequestedEffects, 'ask');
    assert.equal(bad.problems.length, 2);
    // An invalid user policy fails closed but keeps a stated refuse.
    assert.equal(mergePolicy({ unrequestedEffects: 'refuse', write: 7 }, []).value.unrequestedEffects, 'refuse');
  });

  it('a bound approval is taken only by the check that presents its token, only for the identical effect, once', () => {
    const store = new ApprovalStore();
    store.approve(intent(write('new\n')), 'session', 'person', undefined, 'tok');
    assert.equal(decide(store, undefined, ASK, who, write('new\n'), 0).allowed, false, 'no token: not this approval');
    assert.equal(decide(store, undefined, ASK, who, write('new\n'), 0, 'other').allowed, false, 'another token');
    assert.equal(decide(store, undefined, ASK, who, write('new\n', 'edited meanwhile\n'), 0, 'tok').allowed, false, 'the text it replaces changed');
    assert.equal(decide(store, undefined, ASK, who, write('new\n'), 0, 'tok').allowed, true);
    assert.equal(decide(store, undefined, ASK, who, write('new\n'), 0, 'tok').allowed, false, 'a session scope asked for becomes once');
  });

  it('sameEffect: a command is the same only with the same words, folder and environment names', () => {
    assert.ok(sameEffect(command(), command()));
    assert.ok(sameEffect(command({ envNames: ['B', 'A'] }), command({ envNames: ['A', 'B', 'A'] })));
    assert.ok(!sameEffect(command(), command({ args: ['test', '--', '-x'] })));
    assert.ok(!sameEffect(command(), command({ command: 'npm test', args: [] })), 'a shell string is not the same words as argv');
    assert.ok(!sameEffect(command(), command({ cwd: '/w/sub' })));
    assert.ok(!sameEffect(command(), command({ envNames: ['LD_PRELOAD'] })));
    assert.ok(!sameEffect(write('x'), { ...write('x'), hardLinked: true }));
    assert.ok(!sameEffect(write('x', null), write('x', '')), 'a missing file is not an empty one');
  });

  it('the card of a held write is the request itself: the diff from the current text, Create for a new file', () => {
    const c = heldWriteCard('/w/src/a.ts', 'new\n', 'old\n', write('new\n'));
    assert.equal(c.toolCall.title, 'Write src/a.ts');
    assert.deepEqual(c.toolCall.content, [{ type: 'diff', path: '/w/src/a.ts', oldText: 'old\n', newText: 'new\n' }]);
    assert.equal(heldWriteCard('/w/n.ts', 'x', null, write('x', null)).toolCall.title, 'Create src/a.ts');
    assert.match(heldWriteCard('/w/a', 'x', 'y', { ...write('x', 'y'), hardLinked: true }).notes.join(' '), /hard link/);
  });

  it('the card of a held command shows NAME=value whole; a credential\'s value is hidden by its name, never kept', () => {
    const params = { sessionId: 's', command: 'make', args: ['deploy'], env: [{ name: 'DEBUG', value: '1' }, { name: 'AWS_SECRET_ACCESS_KEY', value: 'abc/def+ghi' }, { name: 'GIT_CONFIG_KEY_0', value: 'core.hooksPath' }, { name: 'NODE_OPTIONS', value: '--require ./x.js' }] };
    const effect = command({ command: 'make', args: ['deploy'], envNames: params.env.map((e) => e.name) });
    const c = heldCommandCard(params, effect);
    const d = c.display[0];
    assert.equal(d.type, 'command');
    if (d.type !== 'command') return;
    assert.deepEqual(d.env, ['DEBUG=1', 'AWS_SECRET_ACCESS_KEY=⟨value hidden: the name says it is a credential; 11 characters⟩', 'GIT_CONFIG_KEY_0=core.hooksPath', 'NODE_OPTIONS=--require ./x.js']);
    assert.equal(c.toolCall.title, 'Run make deploy');
    assert.ok(!JSON.stringify(c).includes('abc/def'));
    assert.equal(unshowable(c, effect, null, undefined, params), undefined);
  });

  it('credential names by their words, not by the value: PASSWORD, TOKEN, SECRET, PWD, API_KEY…; not GIT_CONFIG_KEY_0, PATH, KEYBOARD', () => {
    for (const n of ['DB_PASSWORD', 'PGPASSWORD', 'MYSQL_PWD', 'DB_PASS', 'NPM_TOKEN', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'API_KEY', 'OPENAI_API_KEY', 'x-api-key', 'PRIVATE_KEY', 'BASIC_AUTH', 'AZURE_CREDENTIALS', 'apikey']) assert.ok(isCredentialName(n), n);
    for (const n of ['GIT_CONFIG_KEY_0', 'PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'KEYBOARD_LAYOUT', 'MONKEY', 'CI', 'HOME', 'PASSTHROUGH']) assert.ok(!isCredentialName(n), n);
  });

  it('a card that would cut, drop or hide part of the effect is not held: past the limits, outside the workspace, a file whose text was not read', () => {
    const req = (env: { name: string; value: string }[], cmd = 'npm test') => ({ sessionId: 's', command: cmd, env });
    const eff = (r: ReturnType<typeof req>) => command({ command: r.command, args: [], envNames: r.env.map((e) => e.name) });
    const why = (r: ReturnType<typeof req>) => unshowable(heldCommandCard(r, eff(r)), eff(r), null, undefined, r);
    assert.match(why(req(Array.from({ length: 101 }, (_, i) => ({ name: `V${i}`, value: '1' })))) ?? '', /101 environment variables/);
    assert.match(why(req([{ name: 'NODE_OPTIONS', value: 'x'.repeat(4000) }])) ?? '', /longer than a card shows whole/);
    assert.match(why(req([], 'x'.repeat(20_001))) ?? '', /command line is longer/);
    assert.equal(why(req([{ name: 'A', value: 'x'.repeat(3990) }])), undefined);
    const w = heldWriteCard('/w/a', 'x', 'y', write('x', 'y'));
    assert.match(unshowable(w, { ...write('x'), path: '/etc/passwd' }, null, false) ?? '', /outside the workspace/);
    assert.match(unshowable(w, write('x'), null, true) ?? '', /text could not be read/);
    assert.match(unshowable(w, write('x'), undefined, undefined) ?? '', /text could not be read/);
    assert.equal(unshowable(w, write('x'), null, false), undefined, 'no file: a Create');
    assert.equal(unshowable(w, write('x'), 'y', true), undefined);
  });

  it('every way a held effect can end has its own sentence', () => {
    for (const end of ['rejected', 'timeout', 'withdrawn', 'stopped', 'closed', 'changed', 'flood'] as const) assert.match(heldRefusal(end, 'Writing a.txt', 10), /^Writing a\.txt: /);
    assert.match(heldRefusal('timeout', 'x', 1), /within 1 minute,/);
  });

  it('modes that say they will not ask: Gemini CLI, Claude Code, an approval preset; and ones that ask', () => {
    const modes = (currentModeId: string, availableModes = [{ id: currentModeId, name: currentModeId }]) => autonomousMode({ currentModeId, availableModes });
    assert.equal(modes('autoEdit', [{ id: 'autoEdit', name: 'Auto Edit' }]), 'Auto Edit');
    assert.equal(modes('yolo', [{ id: 'yolo', name: 'YOLO' }]), 'YOLO');
    assert.equal(modes('acceptEdits', [{ id: 'acceptEdits', name: 'Accept Edits' }]), 'Accept Edits');
    assert.equal(modes('bypassPermissions'), 'bypassPermissions');
    for (const asks of ['default', 'plan', 'dontAsk', 'automation-review', 'Ask before editing']) assert.equal(modes(asks), undefined, asks);
    const preset = (currentValue: string) => autonomousMode({ configOptions: [{ id: 'approval', name: 'Approval', type: 'select', currentValue, options: [{ value: 'read-only', name: 'Read Only' }, { value: 'auto', name: 'Auto' }, { value: 'full-access', name: 'Full Access' }] }] });
    assert.equal(preset('auto'), 'Auto');
    assert.equal(preset('full-access'), 'Full Access');
    assert.equal(preset('read-only'), undefined);
    // A model called "auto" is not a mode.
    assert.equal(autonomousMode({ configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'auto', options: [{ value: 'auto', name: 'Auto' }] }] }), undefined);
  });
});
