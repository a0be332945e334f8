import assert from 'node:assert/strict';
import { AGENT_FIELD_WORDS, agentEntryLabel, agentRowLabel, availabilityBadge, describeAgentProblems } from '../../../src/config/agentProblems';
import { AgentDefinitionSchema, resolveAgents } from '../../../src/config/agents';

const VALID = { id: 'my-agent', name: 'My agent', command: 'my-agent', args: ['--acp'], env: { DEBUG: '1' } };
/** Values of every JSON kind (and none), some of them wrong for each field. */
const BAD: unknown[] = [undefined, null, 42, true, '', ' ', 'two words', 'x', [], ['--acp', 3], {}, { A: 1 }, { A: null }, [{}]];
/** Words of zod's that a person should never read in the picker. */
const ZOD_WORDS = /invalid input|expected|received|too small|too big|nonoptional|invalid_|\bNaN\b|\[object/i;

describe('agent entry problems in plain words', () => {
  it('has words for every field of the agent schema (a new field without words fails here)', () => {
    assert.deepEqual(Object.keys(AGENT_FIELD_WORDS).sort(), Object.keys(AgentDefinitionSchema.shape).sort());
  });

  for (const field of Object.keys(AgentDefinitionSchema.shape)) {
    it(`says what is wrong with "${field}" for every kind of bad value, naming the field, in no words of zod's`, () => {
      let failures = 0;
      for (const bad of BAD) {
        const raw: Record<string, unknown> = { ...VALID, [field]: bad };
        if (bad === undefined) delete raw[field];
        const r = AgentDefinitionSchema.safeParse(raw);
        if (r.success) continue;
        failures++;
        const words = describeAgentProblems(raw, r.error.issues);
        assert.ok(words.startsWith(field === 'env' || field === 'args' ? field : `${field} `), `${field}=${JSON.stringify(bad)}: ${words}`);
        assert.doesNotMatch(words, ZOD_WORDS, `${field}=${JSON.stringify(bad)}: ${words}`);
        assert.doesNotMatch(words, /\[\d+\]/, 'no index');
      }
      assert.ok(failures > 0, `some value is wrong for ${field}`);
    });
  }

  it('words the cases a person meets: missing, empty, a string for a list, an item, an env value, not an object', () => {
    const say = (raw: unknown) => {
      const r = AgentDefinitionSchema.safeParse(raw);
      assert.equal(r.success, false);
      return describeAgentProblems(raw, r.success ? [] : r.error.issues);
    };
    assert.equal(say({ ...VALID, args: '--acp' }), 'args must be a list of strings, like ["--acp"]');
    assert.equal(say({ ...VALID, args: ['--acp', 3] }), 'args must be a list of strings, like ["--acp"]; item 2 is not a string');
    assert.equal(say({ id: 'x', name: 'X' }), 'command is missing; it must be the program to run, a name on your PATH or a full path, like "claude-code-acp"');
    assert.equal(say({ ...VALID, name: '' }), 'name is empty; it must be the text shown in the agent picker, like "My agent"');
    assert.equal(say({ ...VALID, id: 'my agent' }), 'id must be a short name of letters, digits, ".", "_" or "-", like "my-agent"');
    assert.equal(say({ ...VALID, env: { DEBUG: 1 } }), 'env "DEBUG" must be text, or null to remove the variable');
    assert.match(say('claude'), /^the entry must be an object with "id", "name" and "command"/);
  });

  it('names an entry by its name, else its id, else its place', () => {
    assert.equal(agentEntryLabel({ name: 'Mine', id: 'm' }, 0), 'Mine');
    assert.equal(agentEntryLabel({ name: '', id: 'm' }, 0), 'm');
    assert.equal(agentEntryLabel({ name: 3 }, 1), 'agent entry 2');
    assert.equal(agentEntryLabel('x', 4), 'agent entry 5');
  });

  it('keeps an invalid entry in the list, unavailable, as "<name or id>: <problem>", in the order of the setting', () => {
    const setting = [{ id: 'ok', name: 'OK', command: '/bin/sh' }, { id: 'my-agent', name: 'My agent', command: 'x', args: '--acp' }, { name: 'No id', command: 'y' }, { id: 'codex-acp', name: 'Broken codex' }];
    const twice = [resolveAgents(setting, { pathEnv: '/nonexistent' }), resolveAgents(setting, { pathEnv: '/nonexistent' })];
    assert.deepEqual(twice[0], twice[1], 'the same setting gives the same list (stable across reloads)');
    const { agents, problems } = twice[0];
    const mine = agents.find((a) => a.id === 'my-agent');
    assert.equal(mine?.available, false);
    assert.equal(mine?.reason, 'My agent: args must be a list of strings, like ["--acp"]');
    assert.equal(mine?.invalidEntry, 1);
    const noId = agents.find((a) => a.invalidEntry === 2);
    assert.equal(noId?.id, 'invalid-entry-3');
    assert.match(noId?.reason ?? '', /^No id: id is missing/);
    // A broken entry with a preset's id replaces the preset: the preset does not run instead.
    const codex = agents.find((a) => a.id === 'codex-acp');
    assert.equal(codex?.invalidEntry, 3);
    assert.match(codex?.reason ?? '', /^Broken codex: command is missing/);
    assert.equal(problems.length, 3);
    assert.ok(problems.every((p) => !/\[\d+\]/.test(p) && !ZOD_WORDS.test(p)), problems.join('\n'));
    assert.equal(agents.find((a) => a.id === 'ok')?.available, true);
    const ids = agents.filter((a) => a.source === 'settings').map((a) => a.id);
    assert.deepEqual(ids, ['ok', 'my-agent', 'invalid-entry-3', 'codex-acp'], 'settings entries keep their order, one that replaces a preset too, ahead of everything else');
    assert.deepEqual(agents.slice(0, 4).map((a) => a.id), ids);
  });

  it('lists the agents the person configured first (the pickers start the first that can), then the demo, then the presets', () => {
    const { agents } = resolveAgents([{ id: 'mine', name: 'Mine', command: process.execPath }, { id: 'codex-acp', name: 'My Codex', command: process.execPath }], { pathEnv: '/nonexistent', demo: { command: process.execPath, args: [] } });
    const sources = agents.map((a) => a.source);
    assert.deepEqual(agents.slice(0, 3).map((a) => a.id), ['mine', 'codex-acp', 'demo']);
    assert.deepEqual(sources.slice(3).filter((x) => x !== 'preset'), [], 'the presets after them');
    assert.equal(agents.find((a) => a.available)?.id, 'mine');
    // With none configured, the demo leads.
    assert.equal(resolveAgents([], { pathEnv: '/nonexistent', demo: { command: process.execPath, args: [] } }).agents[0].id, 'demo');
  });

  it('badges why an agent cannot start in the same words everywhere: a malformed entry is never "not found"', () => {
    const setting = [{ id: 'bad', name: 'Bad one', command: 'x', args: [1] }, { id: 'gone', name: 'Gone', command: 'no-such-agent-cmd' }, { id: 'abs', name: 'Abs', command: '/no/such/agent' }, { id: 'dir', name: 'Dir', command: '/' }];
    const { agents } = resolveAgents(setting, { pathEnv: '/nonexistent' });
    const row = (id: string) => agents.find((a) => a.id === id)!;
    assert.deepEqual(['bad', 'gone', 'abs', 'dir'].map((id) => [row(id).unavailable, availabilityBadge(row(id))]), [['malformed', 'malformed entry'], ['not-found', 'not found'], ['missing', 'does not exist'], ['not-a-file', 'not a file']]);
    assert.equal(row('bad').problem, 'args must be a list of strings, like ["--acp"]; item 1 is not a string');
    assert.equal(agentRowLabel(row('bad')), 'Bad one (malformed entry): args must be a list of strings, like ["--acp"]; item 1 is not a string');
    assert.equal(agentRowLabel(row('gone')), 'Gone (not found)');
    assert.equal(availabilityBadge({ name: 'x', available: true }), undefined);
    assert.equal(agentRowLabel({ name: 'Offline demo agent', available: true, demo: true }), 'Offline demo agent');
  });

  it('says a command not found in one sentence, with the PATHs searched as the detail', () => {
    const a = resolveAgents([{ id: 'c', name: 'C', command: 'claude-code-acp' }], { pathEnv: '/nonexistent', loginPath: '/also/not' }).agents.find((x) => x.id === 'c');
    assert.equal(a?.reason, '"claude-code-acp" was not found on your PATH.');
    assert.match(a?.detail ?? '', /editor's PATH \(\/nonexistent\) nor on your login shell's PATH \(\/also\/not\)/);
    const abs = resolveAgents([{ id: 'd', name: 'D', command: '/no/such/agent' }], { pathEnv: '' }).agents.find((x) => x.id === 'd');
    assert.equal(abs?.reason, '"/no/such/agent" does not exist.');
  });
});
