import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT_PREREQUISITES, missingPrerequisites } from '../../../src/acp/agentPrerequisites';

describe('agent prerequisites: a program an agent runs its own work with', () => {
  const has = (...files: string[]) => (f: string) => files.includes(f);

  it('codex-acp on Linux without bwrap on its PATH gets one warning that names the fix', () => {
    const out = missingPrerequisites('codex-acp', 'linux', '/usr/local/bin:/usr/bin', has('/usr/bin/bash'));
    assert.equal(out.length, 1);
    assert.match(out[0], /bubblewrap/);
    assert.match(out[0], /exit code 101/);
    assert.match(out[0], /on the agent's PATH/);
    assert.match(out[0], /apt install bubblewrap/);
  });

  it('no warning when bwrap is in any PATH folder', () => {
    assert.deepEqual(missingPrerequisites('codex-acp', 'linux', '/opt/x:/usr/bin', has('/usr/bin/bwrap')), []);
  });

  it('other agents, other platforms and agents that send no name are untouched', () => {
    assert.deepEqual(missingPrerequisites('claude-agent-acp', 'linux', '/usr/bin', has()), []);
    assert.deepEqual(missingPrerequisites('codex-acp', 'darwin', '/usr/bin', has()), []);
    assert.deepEqual(missingPrerequisites('codex-acp', 'win32', 'C:\\bin', has()), []);
    assert.deepEqual(missingPrerequisites(undefined, 'linux', '/usr/bin', has()), []);
  });

  it('an empty PATH, or only relative folders, finds nothing', () => {
    assert.equal(missingPrerequisites('codex-acp', 'linux', undefined, () => true).length, 1);
    assert.equal(missingPrerequisites('codex-acp', 'linux', 'bin:.:', () => true).length, 1);
  });

  it('the default check wants an executable file, not a folder or a plain file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prereq-'));
    try {
      fs.mkdirSync(path.join(dir, 'a', 'bwrap'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'b'));
      fs.writeFileSync(path.join(dir, 'b', 'bwrap'), '#!/bin/sh\n', { mode: 0o644 });
      assert.equal(missingPrerequisites('codex-acp', 'linux', `${dir}/a:${dir}/b`).length, 1);
      fs.chmodSync(path.join(dir, 'b', 'bwrap'), 0o755);
      assert.deepEqual(missingPrerequisites('codex-acp', 'linux', `${dir}/a:${dir}/b`), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every row names a command and a sentence that says how to fix it', () => {
    for (const p of AGENT_PREREQUISITES) {
      assert.ok(p.agentName && p.command && p.platforms.length, JSON.stringify(p));
      assert.match(p.missing, /Install|install/);
    }
  });
});
