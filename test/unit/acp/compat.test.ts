/**
 * Compatibility rules (src/acp/compat.ts): a rule applies only to the agent it names, within its
 * version range; every other agent gets the spec answer. The last cases run the whole client (SDK
 * connection, session controller, in-memory files) against a scripted agent that calls itself
 * gemini-cli or something else and reads a file that does not exist.
 */
import assert from 'node:assert/strict';
import * as acp from '@agentclientprotocol/sdk';
import { COMPAT_RULES, compatLoadDelay, compatReadTextFileAnswer, compatRuleOf, compatRulesFor, satisfiesRange } from '../../../src/acp/compat';
import { AgentConnection } from '../../../src/acp/connection';
import { SessionController } from '../../../src/acp/sessionController';
import { SessionTerminals } from '../../../src/acp/sessionTerminals';
import { MetaKeys } from '../../../src/acp/extensions';
import { CapabilityMatrix } from '../../../src/acp/capabilities';
import { ProtocolLog } from '../../../src/acp/inspector';
import { MemoryFiles } from '../../fakes/memoryFiles';
import { scriptedAgent } from '../../fakes/inProcessAgent';
import { allowAll } from '../../fakes/policy';

const GEMINI_RULE = 'gemini-cli/missing-file-reads-empty';
const GEMINI_LOAD_RULE = 'gemini-cli/load-after-start-minute';
const notFound = () => acp.RequestError.resourceNotFound('/w/hello.txt');

describe('compatibility rules', () => {
  it('satisfiesRange: semver comparators, prereleases by precedence, garbage never matches', () => {
    assert.equal(satisfiesRange('0.61.0', '<0.62.0'), true);
    assert.equal(satisfiesRange('0.62.0', '<0.62.0'), false);
    assert.equal(satisfiesRange('0.62.1', '<0.62.0'), false);
    assert.equal(satisfiesRange('1.0.0', '<0.62.0'), false);
    assert.equal(satisfiesRange('0.9.3', '<0.62.0'), true, '9 < 62 as numbers, not as text');
    assert.equal(satisfiesRange('0.62.0-nightly.20261120', '<0.62.0'), true, 'a prerelease comes before its release');
    assert.equal(satisfiesRange('v0.61.0', '>=0.40.0 <0.62.0'), true);
    assert.equal(satisfiesRange('0.39.9', '>=0.40.0 <0.62.0'), false);
    assert.equal(satisfiesRange('0.40.0', '>=0.40.0 <0.62.0'), true);
    assert.equal(satisfiesRange('0.40.0-rc.1', '>=0.40.0'), false);
    assert.equal(satisfiesRange('1.0.0-alpha.2', '>1.0.0-alpha.1 <1.0.0-beta'), true);
    assert.equal(satisfiesRange('1.0.0-alpha', '<1.0.0-alpha.1'), true, 'fewer prerelease fields come first');
    assert.equal(satisfiesRange('1.2.3', '=1.2.3'), true);
    assert.equal(satisfiesRange('1.2.3+build.7', '1.2.3'), true, 'build metadata does not count');
    for (const v of ['', 'latest', '0.61', '0.61.0.1', ' ', 'x.y.z']) assert.equal(satisfiesRange(v, '<0.62.0'), false, v);
    for (const r of ['', '~0.61.0', '<0.62', 'foo']) assert.equal(satisfiesRange('0.61.0', r), false, r);
  });

  it('the gemini-cli rule matches only gemini-cli within its range', () => {
    assert.deepEqual(compatRulesFor({ name: 'gemini-cli', version: '0.61.0' }).map((r) => r.id), [GEMINI_RULE, GEMINI_LOAD_RULE]);
    assert.deepEqual(compatRulesFor({ name: 'gemini-cli', version: '0.55.1' }).map((r) => r.id), [GEMINI_RULE, GEMINI_LOAD_RULE]);
    for (const info of [
      { name: 'gemini-cli', version: '0.62.0' },
      { name: 'gemini-cli', version: '1.0.0' },
      { name: 'gemini-cli', version: 'unknown' },
      { name: 'Gemini-CLI', version: '0.61.0' },
      { name: 'gemini-cli-fork', version: '0.61.0' },
      { name: 'claude-code-acp', version: '0.16.2' },
      { name: 'codex-acp', version: '0.16.0' },
      { name: 'opencode', version: '0.61.0' },
    ]) assert.deepEqual(compatRulesFor(info), [], JSON.stringify(info));
    assert.deepEqual(compatRulesFor(undefined), []);
    assert.deepEqual(compatRulesFor(null), []);
    assert.deepEqual(compatRulesFor({ name: 'gemini-cli' } as acp.Implementation), [], 'no version: spec behaviour');
  });

  it('changes only -32002, into empty text marked with the rule', () => {
    const rules = compatRulesFor({ name: 'gemini-cli', version: '0.61.0' });
    const answer = compatReadTextFileAnswer(rules, notFound());
    assert.deepEqual(answer, { content: '', _meta: { [MetaKeys.compatibilityRule]: GEMINI_RULE } });
    assert.equal(compatRuleOf(answer), GEMINI_RULE);
    // A refused path, an unreadable file, a non-text file, a plain Error: unchanged for everyone.
    for (const code of [-32011, -32012, -32014, -32603]) assert.equal(compatReadTextFileAnswer(rules, new acp.RequestError(code, 'no')), undefined, String(code));
    assert.equal(compatReadTextFileAnswer(rules, new Error('boom')), undefined);
    assert.equal(compatReadTextFileAnswer(rules, undefined), undefined);
    assert.equal(compatReadTextFileAnswer([], notFound()), undefined, 'no rule: the spec error');
  });

  it('session/load waits out the minute the session began (and its start window), for gemini-cli only', () => {
    const rules = compatRulesFor({ name: 'gemini-cli', version: '0.61.0' });
    const at = (hms: string) => Date.parse(`2026-12-02T${hms}Z`);
    assert.deepEqual(compatLoadDelay(rules, at('10:00:05'), at('10:00:30')), { waitMs: 31_000, ruleId: GEMINI_LOAD_RULE }, 'until a second past the minute');
    assert.equal(compatLoadDelay(rules, at('10:00:50'), at('10:00:55'))?.waitMs, 66_000, 'a session begun late in a minute may be named by the next one');
    assert.equal(compatLoadDelay(rules, at('10:00:50'), at('10:01:30'))?.waitMs, 31_000);
    assert.equal(compatLoadDelay(rules, at('10:00:05'), at('10:01:00')), undefined, 'the minute has passed');
    assert.equal(compatLoadDelay(rules, at('10:00:05'), at('11:30:00')), undefined);
    assert.equal(compatLoadDelay(rules, Number.NaN, at('10:00:30')), undefined);
    for (const info of [{ name: 'gemini-cli', version: '0.62.0' }, { name: 'claude-agent-acp', version: '0.23.1' }]) {
      assert.equal(compatLoadDelay(compatRulesFor(info), at('10:00:05'), at('10:00:30')), undefined, JSON.stringify(info));
    }
  });

  it('every rule is documented: agent, range that parses, why, what was verified, upstream links', () => {
    const ids = new Set<string>();
    for (const r of COMPAT_RULES) {
      assert.ok(!ids.has(r.id), `unique id ${r.id}`);
      ids.add(r.id);
      assert.ok(r.agent && r.changes.length > 20 && r.why.length > 20 && r.verified.length > 20, r.id);
      assert.ok(r.versions.split(/\s+/).every((c) => /^(>=|<=|>|<|=)?\d+\.\d+\.\d+/.test(c)), r.versions);
      assert.ok(r.upstream.every((u) => u.startsWith('https://github.com/')), r.id);
    }
  });

  it('the capability matrix counts our answers a rule changed, from the wire record', () => {
    const log = new ProtocolLog();
    const matrix = new CapabilityMatrix();
    log.onRecord((e) => matrix.observe(e, log.summary(e)));
    const read = (id: number) => log.record('in', { jsonrpc: '2.0', id, method: 'fs/read_text_file', params: { sessionId: 's', path: '/w/a' } });
    read(1);
    log.record('out', { jsonrpc: '2.0', id: 1, result: compatReadTextFileAnswer(compatRulesFor({ name: 'gemini-cli', version: '0.61.0' }), notFound()) });
    read(2);
    log.record('out', { jsonrpc: '2.0', id: 2, result: { content: 'plain' } });
    read(3);
    log.record('out', { jsonrpc: '2.0', id: 3, error: { code: -32002, message: 'Resource not found: /w/a' } });
    const rows = matrix.rows();
    assert.equal(rows.find((r) => r.capability === 'fs/read_text_file')?.exercised, 3);
    assert.equal(rows.find((r) => r.capability === 'fs/read_text_file')?.failed, 1);
    assert.deepEqual(rows.filter((r) => r.capability.includes('compatibility rule')).map((r) => [r.capability, r.group, r.exercised]), [[`fs/read_text_file: compatibility rule applied (${GEMINI_RULE})`, 'agent calls us', 1]]);
  });

  for (const [agentInfo, expected] of [
    [{ name: 'gemini-cli', version: '0.61.0' }, 'empty'],
    [{ name: 'gemini-cli', version: '0.62.0' }, 'error'],
    [{ name: 'some-other-agent', version: '0.61.0' }, 'error'],
  ] as const) {
    it(`end to end: ${agentInfo.name} ${agentInfo.version} reading a missing file gets ${expected === 'empty' ? 'empty text' : '-32002'}`, async () => {
      const seen: unknown[] = [];
      const agent = scriptedAgent(async (t) => {
        try {
          seen.push(await t.client.request('fs/read_text_file', { sessionId: t.sessionId, path: '/w/hello.txt' }));
        } catch (err) {
          seen.push({ error: (err as { code?: number }).code });
        }
        // An existing file reads as itself either way.
        seen.push(await t.client.request('fs/read_text_file', { sessionId: t.sessionId, path: '/w/there.txt' }));
        return 'end_turn';
      }, { agentInfo });
      const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
      const files = new MemoryFiles();
      files.docs.set('/w/there.txt', { text: 'x\n', version: 1, dirty: false });
      const c = new SessionController({ key: 'k', agentId: 's', agentName: 'Scripted', cwd: '/w' }, files, new SessionTerminals('/w', () => process.env), allowAll({ roots: ['/w'] }));
      await c.attach(conn);
      assert.equal((await c.prompt('read')).stopReason, 'end_turn');
      if (expected === 'empty') assert.deepEqual(seen[0], { content: '', _meta: { [MetaKeys.compatibilityRule]: GEMINI_RULE } });
      else assert.deepEqual(seen[0], { error: -32002 });
      assert.deepEqual(seen[1], { content: 'x\n' });
      assert.equal(files.ledger.get('/w/hello.txt'), undefined, 'the missing file is not recorded as read: a file appearing later is not taken as seen');
      await c.dispose();
    });
  }
});
