/**
 * Issue 16, finding 16: secrets in command lines and terminal output never reach the session
 * journal, the trace archive or an exported trace on disk. Each file is read back from disk.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionJournal } from '../../../src/acp/session/journal';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';
import type { EffectCheck } from '../../../src/policy/effectPolicy';
import { redactSecrets } from '../../../src/policy/redact';
import { TraceArchive } from '../../../src/trace/archive';
import { parseOtlpJson, toOtlpJson, type SpanRecord } from '../../../src/trace/otlp';
import { SessionSpans } from '../../../src/trace/sessionSpans';
import { TraceStore } from '../../../src/trace/store';
import { Tracing } from '../../../src/trace/tracing';

const PEM = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB', 'AAAAMwAAAAtzc2gtZWQyNTUxOQAAACDk0k7xQ9zWm3vB8rT2yU6p', '-----END OPENSSH PRIVATE KEY-----'].join('\n');
const COMMAND = 'curl -s -H "Authorization: Bearer s3cr3tBearerValue0123456789" --token tkn_0123456789abcdef https://api.example/v1 && ghp_0123456789abcdefghijABCDEFGHIJ';
const ENV_LINE = 'FOO_TOKEN=envSecretValue42 DB_PASSWORD=pw_9f8e7d6c make deploy';
const OUTPUT = `> deploy\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n${PEM}\ndone\n`;
/** Parts of the secrets above that must appear nowhere on disk. */
const SECRETS = ['s3cr3tBearerValue0123456789', 'tkn_0123456789abcdef', 'ghp_0123456789abcdefghijABCDEFGHIJ', 'envSecretValue42', 'pw_9f8e7d6c', 'dozjgNryP4J3jVmNHl0w5N', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmU', 'AAAAMwAAAAtzc2gtZWQyNTUxOQ'];

function assertClean(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  for (const s of SECRETS) assert.ok(!text.includes(s), `${path.basename(file)} holds ${s}`);
  return text;
}

describe('secrets at rest (issue 16, finding 16)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-secrets-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the redaction catches each kind on its own', () => {
    for (const text of [COMMAND, ENV_LINE, OUTPUT]) for (const s of SECRETS) assert.ok(!redactSecrets(text).includes(s), `${s} in ${redactSecrets(text)}`);
    assert.equal(redactSecrets('npm test -- --grep token'), 'npm test -- --grep token', 'ordinary text stays');
  });

  it('the session journal holds no command line, env assignment, header or key in the clear; the replay shows them redacted', () => {
    const journal = new SessionJournal(path.join(dir, 'journal'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    journal.record(id, { type: 'promptSent', text: `Deploy with ${ENV_LINE}` });
    journal.record(id, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: COMMAND, kind: 'execute', status: 'in_progress', rawInput: { command: COMMAND, env: ENV_LINE } } });
    journal.record(id, { type: 'terminal', terminal: { terminalId: 'term1', commandLine: `${ENV_LINE} ${COMMAND}`, cwd: '/w', output: OUTPUT, truncated: false, exitStatus: { exitCode: 0, signal: null } } });
    // A secret streamed across chunks of one message is caught in the coalesced text.
    for (const chunk of ['Your key: ', OUTPUT.slice(0, 40), OUTPUT.slice(40)]) journal.record(id, { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } } });
    journal.flush(true);
    const text = assertClean(path.join(dir, 'journal', `${id}.jsonl`));
    assertClean(path.join(dir, 'journal', 'index.json'));
    assert.ok(text.includes('[redacted'), 'redacted, not dropped');
    const { state, skipped } = journal.replay(id, 'k1');
    assert.equal(skipped, 0);
    assert.match(state.toolCalls.t1.title, /Authorization: \[redacted\]/);
    assert.match(state.terminals.term1.output, /\[redacted private key\]/);
    assert.match(state.terminals.term1.output, /^> deploy\n/, 'the rest of the output stays');
  });

  it('the trace archive and an exported trace hold no secret from effect spans, tool spans or the agent\'s own spans', async () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const state = createSessionState({ key: 'k1', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    const spans = new SessionSpans(tracing, state);
    spans.observe(reduce(state, { type: 'ready', sessionId: 's1' }));
    spans.observe(reduce(state, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: COMMAND, kind: 'execute', status: 'in_progress' } }));
    const check = { allowed: true, source: 'policy', effect: { type: 'command', command: `${ENV_LINE} ${COMMAND}`, args: [], cwd: '/w', envNames: [] }, description: 'run' } as unknown as Extract<EffectCheck, { allowed: true }>;
    spans.effect(check, 't1')(`exit 1: ${OUTPUT}`);
    const traceId = store.spans('k1')[0].traceId;
    // A span the agent exported itself, with the same secrets in its attributes and events.
    const agentSpan: SpanRecord = {
      traceId, spanId: 'a1b2c3d4e5f60718', name: `bash ${COMMAND}`, kind: 'internal', startMs: Date.now(), endMs: Date.now() + 1, status: { code: 'error', message: OUTPUT },
      attributes: { 'process.command_line': `${ENV_LINE} ${COMMAND}`, 'http.request.header.authorization': 'opaque-value-xyz', output: OUTPUT }, events: [{ name: 'log', timeMs: Date.now(), attributes: { message: OUTPUT } }], links: [], service: 'agent', received: true,
    };
    store.add([agentSpan]);
    spans.end();
    await tracing.dispose();
    const all = store.spans('k1');
    assert.ok(all.some((s) => s.name.startsWith('run ')), 'the effect span is there');
    const saved = new TraceArchive(path.join(dir, 'traces')).save(`Deploy ${ENV_LINE}`, all);
    assert.ok(saved);
    const archived = assertClean(saved);
    assert.ok(!archived.includes('opaque-value-xyz'), 'a header attribute loses its whole value');
    assertClean(path.join(dir, 'traces', 'index.json'));
    assert.ok(!path.basename(saved).includes('envSecretValue42'));
    const exported = path.join(dir, 'export.json');
    fs.writeFileSync(exported, JSON.stringify(toOtlpJson(all), null, 2));
    assertClean(exported);
    // What was saved still loads as a trace.
    const back = parseOtlpJson(JSON.parse(archived));
    assert.equal(back.spans.length, all.length, JSON.stringify(back.problems));
  });

  it('effect spans in memory carry the command line redacted', async () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const state = createSessionState({ key: 'k2', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    const spans = new SessionSpans(tracing, state);
    const check = { allowed: true, source: 'policy', effect: { type: 'command', command: ENV_LINE, args: [], cwd: '/w', envNames: [] }, description: 'run' } as unknown as Extract<EffectCheck, { allowed: true }>;
    spans.effect(check, undefined)();
    spans.end();
    await tracing.dispose();
    const text = JSON.stringify(store.spans('k2'));
    for (const s of SECRETS) assert.ok(!text.includes(s), s);
  });
});
