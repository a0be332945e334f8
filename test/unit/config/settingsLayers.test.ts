import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { mergeFlag, mergePolicy, PolicySchema, SETTING_CLASSES, userOnly } from '../../../src/config/settingsLayers';

const ws = (value: unknown) => [{ where: 'workspace settings', value }];
const rank = { allow: 0, ask: 1, deny: 2 } as const;

describe('settings: the person decides, a workspace only tightens', () => {
  it('write and command: a workspace may turn allow into ask and ask into deny, never back', () => {
    for (const kind of ['write', 'command'] as const) {
      for (const user of ['allow', 'ask', 'deny'] as const) {
        for (const theirs of ['allow', 'ask', 'deny'] as const) {
          const r = mergePolicy({ [kind]: user }, ws({ [kind]: theirs }));
          const expected = rank[theirs] > rank[user] ? theirs : user;
          assert.equal(r.value[kind], expected, `${kind}: user ${user}, workspace ${theirs}`);
          assert.equal(r.tightened.length, rank[theirs] > rank[user] ? 1 : 0, `${kind} ${user}/${theirs} tightened`);
          assert.equal(r.ignored.length, rank[theirs] < rank[user] ? 1 : 0, `${kind} ${user}/${theirs} ignored`);
        }
      }
    }
    assert.deepEqual(mergePolicy({ write: 'ask' }, ws({ write: 'allow' })).ignored, ['write: allow (workspace settings); your settings say ask']);
    assert.deepEqual(mergePolicy({ command: 'allow' }, ws({ command: 'deny' })).tightened, ['command: allow → deny (workspace settings)']);
  });

  it('deny rules: the workspace adds to the person\'s, never drops them; allow rules from the workspace are ignored', () => {
    const mine = { kind: 'command', commandRegex: '\\brm\\b' };
    const theirs = { kind: 'write', pathGlob: 'secrets/**' };
    const r = mergePolicy({ deny: [mine], allow: [{ kind: 'command', commandPrefix: 'npm test' }] }, ws({ deny: [theirs, mine], allow: [{ kind: 'command' }, { kind: 'write' }] }));
    assert.deepEqual(r.value.deny, [mine, theirs], 'added, without a duplicate');
    assert.deepEqual(r.value.allow, [{ kind: 'command', commandPrefix: 'npm test' }], "only the person's allow rules");
    assert.deepEqual(r.tightened, ['1 deny rule added (workspace settings)']);
    assert.deepEqual(r.ignored, ['2 allow rules (workspace settings); allow rules apply only from your user settings']);
    assert.deepEqual(mergePolicy({ deny: [mine] }, ws({ deny: [] })).value.deny, [mine], 'an empty workspace list does not clear them');
    const regex = mergePolicy({}, ws({ deny: [{ kind: 'command', commandRegex: '(a+)+$' }] }));
    assert.deepEqual(regex.value.deny, [], "a repository's regular expression does not run on every command line");
    assert.equal(regex.ignored.length, 1);
  });

  it('dryRun: on tightens, off is ignored', () => {
    assert.equal(mergePolicy({}, ws({ dryRun: true })).value.dryRun, true);
    const r = mergePolicy({ dryRun: true }, ws({ dryRun: false }));
    assert.equal(r.value.dryRun, true);
    assert.equal(r.ignored.length, 1);
  });

  it('protectedTargets: deny tightens, ask is ignored', () => {
    assert.equal(mergePolicy({}, ws({ protectedTargets: 'deny' })).value.protectedTargets, 'deny');
    const r = mergePolicy({ protectedTargets: 'deny' }, ws({ protectedTargets: 'ask' }));
    assert.equal(r.value.protectedTargets, 'deny');
    assert.equal(r.ignored.length, 1);
  });

  it('grantMinutes: a workspace may only shorten (0 = until revoked is the longest)', () => {
    const cases: [number, number, number][] = [
      [0, 10, 10], // until revoked -> 10 minutes: shorter
      [30, 10, 10],
      [10, 30, 10], // longer: ignored
      [10, 0, 10], // "until revoked": ignored
      [0, 0, 0],
      [10, 10, 10],
    ];
    for (const [user, theirs, expected] of cases) {
      const r = mergePolicy({ grantMinutes: user }, ws({ grantMinutes: theirs }));
      assert.equal(r.value.grantMinutes, expected, `user ${user}, workspace ${theirs}`);
      assert.equal(r.ignored.length, expected === user && theirs !== user ? 1 : 0, `ignored: user ${user}, workspace ${theirs}`);
    }
  });

  it('invalid workspace values are reported and ignored, never a reason to drop the person\'s policy', () => {
    const mine = { kind: 'command', commandRegex: 'curl' };
    const r = mergePolicy({ write: 'allow', deny: [mine] }, ws({ write: 'sometimes', deny: [{ kind: 'nope' }, { kind: 'command', commandPrefix: 'wget' }], grantMinutes: -1, bogus: 1 }));
    assert.equal(r.value.write, 'allow');
    assert.deepEqual(r.value.deny, [mine, { kind: 'command', commandPrefix: 'wget' }], 'the valid workspace rule still tightens');
    assert.equal(r.problems.length, 4, r.problems.join('\n'));
    assert.deepEqual(mergePolicy({ write: 'allow' }, ws('allow')).value.write, 'allow', 'a non-object is ignored');
    assert.equal(mergePolicy({ write: 'allow' }, ws([{ write: 'deny' }])).problems.length, 1);
  });

  it('an invalid user policy fails closed and keeps the deny rules it can read', () => {
    const r = mergePolicy({ write: 'allow', command: 'deny', deny: [{ kind: 'command', commandRegex: 'rm' }, { kind: 'bad' }], protectedTargets: 'deny', grantMinutes: 'x' }, []);
    assert.equal(r.value.write, 'ask');
    assert.equal(r.value.command, 'deny');
    assert.deepEqual(r.value.deny, [{ kind: 'command', commandRegex: 'rm' }]);
    assert.equal(r.value.protectedTargets, 'deny');
    assert.equal(r.problems.length, 1);
  });

  it('every layer tightens: a workspace file and a folder alike', () => {
    const r = mergePolicy({ write: 'allow' }, [{ where: 'workspace settings', value: { write: 'ask' } }, { where: 'workspace folder settings', value: { write: 'deny' } }]);
    assert.equal(r.value.write, 'deny');
    assert.equal(r.tightened.length, 2);
  });

  it('property: the merged policy is never looser than the person\'s, whatever the workspace writes', () => {
    const level = fc.constantFrom('allow', 'ask', 'deny');
    const rule = fc.oneof(fc.record({ kind: fc.constant('command'), commandPrefix: fc.constantFrom('npm test', 'git') }), fc.record({ kind: fc.constant('write'), pathGlob: fc.constantFrom('src/**', '**') }));
    const policy = fc.record(
      { write: level, command: level, dryRun: fc.boolean(), deny: fc.array(rule, { maxLength: 3 }), allow: fc.array(rule, { maxLength: 3 }), protectedTargets: fc.constantFrom('ask', 'deny'), grantMinutes: fc.nat({ max: 100 }) },
      { requiredKeys: [] },
    );
    const anything = fc.oneof(policy, fc.anything());
    fc.assert(
      fc.property(policy, fc.array(anything, { maxLength: 3 }), (user, layers) => {
        const mine = PolicySchema.parse(user);
        const r = mergePolicy(user, layers.map((value) => ({ where: 'workspace settings', value })));
        const p = r.value;
        assert.ok(rank[p.write] >= rank[mine.write] && rank[p.command] >= rank[mine.command]);
        assert.ok(p.dryRun >= mine.dryRun);
        assert.ok(p.protectedTargets === 'deny' || mine.protectedTargets === 'ask');
        assert.deepEqual(p.allow, mine.allow);
        assert.deepEqual(p.deny.slice(0, mine.deny.length), mine.deny);
        assert.ok(mine.grantMinutes === 0 || (p.grantMinutes > 0 && p.grantMinutes <= mine.grantMinutes));
      }),
      { numRuns: 300 },
    );
  });

  it('flags: a workspace may move them only toward the strict value', () => {
    const f = (user: unknown, theirs: unknown) => mergeFlag('agentSwitchboard.editorMcpServer', user, true, false, ws(theirs));
    assert.equal(f(undefined, false).value, false, 'turned off');
    assert.equal(f(undefined, false).tightened.length, 1);
    assert.equal(f(false, true).value, false, 'not turned on');
    assert.equal(f(false, true).ignored.length, 1);
    assert.equal(f(true, 'yes').value, true);
    assert.equal(f(true, 'yes').problems.length, 1);
    const n = (user: unknown, theirs: unknown) => mergeFlag('agentSwitchboard.showNotifications', user, true, true, ws(theirs));
    assert.equal(n(undefined, false).value, true, 'a workspace cannot hide that a session waits');
    assert.equal(n(false, true).value, true);
  });

  it('user-only settings ignore every workspace value', () => {
    const r = userOnly('agentSwitchboard.tracing.exportEndpoint', '', ws('https://collector.example/v1/traces'));
    assert.equal(r.value, '');
    assert.deepEqual(r.ignored, ['agentSwitchboard.tracing.exportEndpoint (workspace settings); it is read only from your user settings']);
    assert.ok(!r.ignored[0].includes('example'), "the repository's value is not repeated");
  });

  it('every contributed setting is classified, and its declared scope tells the settings UI the truth', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
    const props = pkg.contributes.configuration.properties as Record<string, { scope?: string }>;
    assert.deepEqual(Object.keys(props).sort(), Object.keys(SETTING_CLASSES).sort());
    for (const [key, { cls }] of Object.entries(SETTING_CLASSES)) {
      const scope = props[key].scope ?? 'window';
      // User-only: the editor itself shows the workspace value as not applied (and drops it).
      if (cls === 'user') assert.equal(scope, 'application', key);
      // Tighten-only: the reader needs to see the workspace's value, so the workspace may write it.
      if (cls === 'tighten') assert.ok(['window', 'resource'].includes(scope), key);
    }
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), ['agentSwitchboard.agents', 'agentSwitchboard.policy']);
  });
});
