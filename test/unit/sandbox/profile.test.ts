/**
 * Sandbox profiles in the intent (issue 21): the profile is part of what the hash covers and of what
 * an approval covers; a grant made from a sandboxed card covers that command in that sandbox only; an
 * auto-approve rule never covers an unsandboxed command; `always` without a sandbox refuses whatever
 * was approved; the card's words never claim a sandbox that is not there.
 */
import assert from 'node:assert/strict';
import { buildProfile, blockedHosts, protectionRoot, describeProfile, describeUnsandboxed, profileHash, sameProfile, withHost, type SandboxPlan } from '../../../src/sandbox/profile';
import { commandCovers, sameEffect } from '../../../src/policy/gate';
import { intentHash, type CommandEffect, type Intent } from '../../../src/policy/intent';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import { patternMatches } from '../../../src/policy/grants';
import { mergeLevel } from '../../../src/config/settingsLayers';

const profile = buildProfile({ roots: ['/w'], tmpDir: '/tmp', home: '/home/p', editorStorage: ['/home/p/.config/Code/User/settings.json'], allowedHosts: [] });
const holding = { ...profile, holdsBackRunnable: true as const };
const cmd = (sandbox?: typeof profile): CommandEffect => ({ type: 'command', command: 'npm test', args: [], cwd: '/w', envNames: [], ...(sandbox ? { sandbox } : {}) });

describe('sandbox profiles are part of the intent (issue 21)', () => {
  it('builds a sorted profile: the session folders and temp writable, credentials and editor storage unreadable, hosts as given', () => {
    assert.deepEqual(profile.writeRoots, ['/tmp', '/w']);
    assert.ok(profile.denyRead.includes('/home/p/.ssh') && profile.denyRead.includes('/home/p/.aws') && profile.denyRead.includes('/home/p/.config/gcloud'));
    assert.ok(profile.denyRead.includes('/home/p/.config/Code/User/settings.json'));
    assert.deepEqual(profile.allowedHosts, []);
    assert.equal(profileHash(buildProfile({ roots: ['/w', '/w'], tmpDir: '/tmp', home: '/home/p', editorStorage: ['/home/p/.config/Code/User/settings.json'], allowedHosts: [' '] })), profileHash(profile), 'duplicates and blanks do not change it');
  });

  it('the hash covers the profile; an unsandboxed intent hashes as before', () => {
    const intent = (e: CommandEffect): Intent => ({ sessionId: 's', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [e] });
    assert.notEqual(intentHash(intent(cmd(profile))), intentHash(intent(cmd())));
    assert.notEqual(intentHash(intent(cmd(profile))), intentHash(intent(cmd(withHost(profile, 'example.com')))));
    assert.equal(intentHash(intent(cmd())), intentHash({ sessionId: 's', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [{ type: 'command', command: 'npm test', args: [], cwd: '/w', envNames: [] }] }));
  });

  it('an approval covers the command in exactly the profile it showed: another host, folder, no sandbox or a sandbox is another effect', () => {
    assert.ok(commandCovers(cmd(profile), cmd(profile)));
    assert.ok(!commandCovers(cmd(profile), cmd(withHost(profile, 'evil.example'))));
    assert.ok(!commandCovers(cmd(profile), cmd({ ...profile, writeRoots: ['/'] })));
    assert.ok(!commandCovers(cmd(profile), cmd()), 'approved sandboxed, run without');
    assert.ok(!commandCovers(cmd(), cmd(profile)), 'approved unsandboxed: the card did not show this profile');
    // An undeclared command (any one command in the folder) still only in the profile shown.
    assert.ok(!commandCovers({ ...cmd(profile), command: null }, cmd(withHost(profile, 'x.example'))));
    assert.ok(sameEffect(cmd(profile), cmd(profile)) && !sameEffect(cmd(profile), cmd(withHost(profile, 'x.example'))));
    assert.ok(sameProfile(undefined, undefined) && !sameProfile(profile, undefined));
  });

  it('a grant from a sandboxed card covers that sandbox only; an auto-approve rule never an unsandboxed command', () => {
    const grant = { kind: 'command' as const, commandExact: 'npm test', sandboxProfile: profileHash(profile) };
    assert.ok(patternMatches(grant, 'a', cmd(profile)));
    assert.ok(!patternMatches(grant, 'a', cmd(withHost(profile, 'x.example'))));
    assert.ok(!patternMatches(grant, 'a', cmd()));
    const rule = { kind: 'command' as const, commandPrefix: 'npm test', sandboxed: true as const };
    assert.ok(patternMatches(rule, 'a', cmd(holding)) && patternMatches(rule, 'a', cmd(withHost(holding, 'x.example'))));
    assert.ok(!patternMatches(rule, 'a', cmd()));
    assert.ok(!patternMatches(rule, 'a', cmd(profile)), 'never where the sandbox cannot hold back files that run');
  });

  it('the gate: the effect carries the profile of the plan; always without a sandbox refuses whatever was approved; the auto-approve rule answers requests of sandboxed commands only', async () => {
    let plan: SandboxPlan = { mode: 'ask', profile: holding };
    const policy = new EffectPolicy({
      defaults: () => ({ write: 'ask', command: 'ask', dryRun: false, allow: [{ kind: 'command', commandPrefix: 'npm test', sandboxed: true }] }),
      roots: () => ['/w'],
      readCurrent: async () => null,
      sandbox: async () => plan,
    });
    const who = { sessionId: 's', agentId: 'a', cwd: '/w' };
    const ok = await policy.checkCommand(who, { sessionId: 'x', command: 'npm test' });
    assert.equal(ok.allowed, true, 'the sandboxed rule');
    assert.deepEqual((ok.effect as CommandEffect).sandbox, holding, 'the effect names the profile it runs in');
    const intent: Intent = { sessionId: 's', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [cmd(holding)] };
    assert.equal(policy.grantFor(who, intent)?.id, 'sandbox-auto-approve');
    assert.equal(policy.grantFor(who, { ...intent, effects: [cmd(profile)] }), undefined, 'never where the sandbox cannot hold back files that run');
    plan = { mode: 'ask', profile };
    assert.equal((await policy.checkCommand(who, { sessionId: 'x', command: 'npm test' })).allowed, false, 'a sandbox that cannot hold back files that run: the rule does not let it through');
    assert.equal(policy.grantFor(who, { ...intent, effects: [cmd()] }), undefined, 'never for an unsandboxed command');
    plan = { mode: 'ask', unavailable: 'no bubblewrap' };
    assert.equal((await policy.checkCommand(who, { sessionId: 'x', command: 'npm test' })).allowed, false, 'unsandboxed: the rule does not cover it');
    plan = { mode: 'always', unavailable: 'no bubblewrap' };
    policy.recordDecision(who, { ...intent, effects: [cmd()] }, { kind: 'allow_once', optionId: 'o' }, { kind: 'person' });
    const refused = await policy.checkCommand(who, { sessionId: 'x', command: 'npm test' });
    assert.equal(refused.allowed, false);
    assert.equal(!refused.allowed && refused.reason, 'sandbox_unavailable');
    assert.equal(policy.holdable(refused), false, 'not put to the person either');
  });

  it('words: what the profile allows, or that there is none; blocked hosts read from the sandbox\'s refusals', () => {
    assert.match(describeProfile(profile, '/home/p'), /^Sandboxed when the editor runs it: can write only in \/tmp and \/w; no network; cannot read \d+ credential.*An agent that runs commands itself is not sandboxed by this\.$/);
    assert.match(describeProfile(withHost(profile, 'registry.npmjs.org'), '/home/p'), /network only to registry\.npmjs\.org/);
    assert.equal(describeUnsandboxed({ mode: 'off' }), undefined);
    assert.equal(describeUnsandboxed({ mode: 'ask', profile }), undefined);
    assert.match(describeUnsandboxed({ mode: 'ask', unavailable: 'x' })!, /^Not sandboxed/);
    assert.match(describeUnsandboxed({ mode: 'always', unavailable: 'x' })!, /^Will not run/);
    // Only refusals that allowing the host would lift ("not on the allow list"), each host once.
    assert.deepEqual(blockedHosts('deny network-outbound 127.0.0.1:39719 (host is not on the allow list)\ndeny network-outbound a.example:443 (x)\ndeny network-outbound b.example:443 (host is not on the allow list)\ndeny network-outbound 127.0.0.1:39719 (host is not on the allow list)'), ['127.0.0.1:39719', 'b.example:443']);
  });

  it('a workspace may only move agentSwitchboard.sandbox toward always', () => {
    const order = ['off', 'ask', 'always'] as const;
    assert.equal(mergeLevel('s', order, 'off', 'off', [{ where: 'workspace settings', value: 'always' }]).value, 'always');
    const looser = mergeLevel('s', order, 'always', 'off', [{ where: 'workspace settings', value: 'off' }]);
    assert.equal(looser.value, 'always');
    assert.equal(looser.ignored.length, 1);
    assert.equal(mergeLevel('s', order, 'bogus', 'off', []).problems.length, 1);
  });

  it('the library looks for what stays read-only in the session folder that holds the command, whatever folder the agent picks; never / or the temp folder', () => {
    const roots = ['/tmp', '/w/app', '/w/app/packages/lib', '/w/other'];
    assert.equal(protectionRoot('/w/app', roots, '/tmp'), '/w/app');
    // A subfolder: its session folder (where the folder's own settings are), the deepest that holds it.
    assert.equal(protectionRoot('/w/app/src', roots, '/tmp'), '/w/app');
    assert.equal(protectionRoot('/w/app/packages/lib/x', roots, '/tmp'), '/w/app/packages/lib');
    assert.equal(protectionRoot('/w/other', roots, '/tmp'), '/w/other');
    // The temp folder, or outside every write root: the session's first folder.
    assert.equal(protectionRoot('/tmp/build', roots, '/tmp'), '/w/app');
    assert.equal(protectionRoot('/', roots, '/tmp'), '/w/app');
    assert.equal(protectionRoot('/etc', roots, '/tmp'), '/w/app');
    // A name that only begins like a folder is not in it.
    assert.equal(protectionRoot('/w/app2', ['/tmp', '/w/zz', '/w/app'], '/tmp'), '/w/zz');
    assert.equal(protectionRoot('/tmp/x', ['/tmp'], '/tmp'), '/tmp');
    assert.equal(protectionRoot('/anywhere', [], '/tmp'), '/anywhere');
    // A workspace opened at / is never searched whole.
    assert.equal(protectionRoot('/srv/app', ['/', '/tmp'], '/tmp'), '/srv/app');
    assert.equal(protectionRoot('/', ['/', '/tmp'], '/tmp'), '/tmp');
  });

});
