import assert from 'node:assert/strict';
import { formatCommandLine, formatLaunchError, LineRing } from '../../../src/acp/transport/launchError';

describe('launch error formatting', () => {
  const base = { command: 'my-agent', args: ['--acp', 'two words'], pathUsed: '/usr/bin:/bin', stderrTail: ['boom'] };
  it('quotes the command line like a shell would', () => {
    assert.equal(formatCommandLine('my-agent', ['--acp', 'two words', "it's"]), `my-agent --acp 'two words' 'it'\\''s'`);
  });
  it('names a missing command and the PATH used', () => {
    const v = formatLaunchError({ ...base, phase: 'spawn', errno: 'ENOENT' }, 'My Agent');
    assert.match(v.message, /"my-agent" was not found/);
    assert.equal(v.pathUsed, '/usr/bin:/bin');
    assert.equal(v.commandLine, "my-agent --acp 'two words'");
  });
  it('reports exit code, signal and stderr tail', () => {
    assert.match(formatLaunchError({ ...base, phase: 'exit', exitCode: 1, signal: null }, 'A').message, /exited with code 1 before it was ready/);
    const v = formatLaunchError({ ...base, phase: 'exit', exitCode: null, signal: 'SIGKILL', afterStart: true }, 'A');
    assert.match(v.message, /killed by SIGKILL during the session/);
    assert.deepEqual(v.stderrTail, ['boom']);
  });
  it('explains an initialize timeout', () => {
    assert.match(formatLaunchError({ ...base, phase: 'timeout', timeoutSeconds: 5 }, 'A').message, /did not answer "initialize" within 5 s/);
  });
  it('keeps only the last lines of stderr, split across chunks', () => {
    const r = new LineRing(3);
    r.push('a\nb\r\nc');
    r.push('d\ne\nf');
    assert.deepEqual(r.tail(), ['cd', 'e', 'f']);
  });
});
