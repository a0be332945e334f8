/**
 * Session states for the webview tests (and for eyeballing the UI in a browser harness): one
 * thread with every entry kind, tool cards with a diff, a terminal and a waiting permission.
 */
import type { SessionState } from '../../../src/acp/session/types';
import type { AgentChoice, HostMessage, SessionSummary } from '../../../src/views/session/protocol';

export const AGENTS: AgentChoice[] = [
  { id: 'claude', name: 'Claude Code', available: true },
  { id: 'gemini', name: 'Gemini CLI', available: false, reason: '`gemini` was not found on PATH' },
  { id: 'demo', name: 'Demo agent', available: true, demo: true },
];

const OLD_SRC = `export function greet(name: string): string {
  return 'Hello ' + name;
}

export function add(a: number, b: number): number {
  return a + b;
}
`;

const NEW_SRC = `export function greet(name: string, excited = false): string {
  const base = \`Hello \${name}\`;
  return excited ? base + '!' : base;
}

export function add(a: number, b: number): number {
  return a + b;
}
`;

export const AGENT_MARKDOWN = `I'll add an **optional** \`excited\` flag to \`greet\` and run the tests.

1. Update \`src/greet.ts\`
2. Run \`npm test\`

\`\`\`ts
greet('Ada', true); // "Hello Ada!"
\`\`\`

See https://example.com/docs for the style guide.`;

/** A session in the middle of a turn: the agent waits for permission to run the tests. */
export function richState(): SessionState {
  return {
    key: 's1',
    sessionId: 's1',
    agentId: 'claude',
    agentName: 'Claude Code',
    cwd: '/work/demo',
    status: 'prompting',
    title: 'Add excited flag to greet()',
    entries: [
      { kind: 'user', id: 'e0', text: 'Add an optional "excited" flag to greet() and run the tests.' },
      { kind: 'thought', id: 'e1', text: 'The user wants a flag. I should read greet.ts first, then edit it and run the test suite.' },
      { kind: 'agent', id: 'e2', text: AGENT_MARKDOWN, attachments: [] },
      { kind: 'tool_call', id: 'e3', toolCallId: 'tc-read' },
      { kind: 'tool_call', id: 'e4', toolCallId: 'tc-edit' },
      { kind: 'tool_call', id: 'e5', toolCallId: 'tc-exec' },
      { kind: 'notice', id: 'e6', severity: 'info', text: 'Agent switched to mode "code".' },
      { kind: 'tool_call', id: 'e7', toolCallId: 'tc-test' },
    ],
    toolCalls: {
      'tc-read': {
        toolCallId: 'tc-read', title: 'Read src/greet.ts', kind: 'read', status: 'completed', content: [],
        locations: [{ path: '/work/demo/src/greet.ts', line: 1 }], placeholder: false,
      },
      'tc-edit': {
        toolCallId: 'tc-edit', title: 'Edit src/greet.ts', kind: 'edit', status: 'completed',
        content: [{ type: 'diff', path: '/work/demo/src/greet.ts', oldText: OLD_SRC, newText: NEW_SRC, added: 3, removed: 2 }],
        locations: [{ path: '/work/demo/src/greet.ts', line: 1 }], placeholder: false,
        permissionId: 'p0',
      },
      'tc-exec': {
        toolCallId: 'tc-exec', title: 'npm run build', kind: 'execute', status: 'completed',
        content: [{ type: 'terminal', terminalId: 't1' }], locations: [], placeholder: false,
        rawInput: { command: 'npm run build', cwd: '/work/demo' },
      },
      'tc-test': {
        toolCallId: 'tc-test', title: 'Run the tests', kind: 'execute', status: 'awaiting_approval', content: [], locations: [],
        placeholder: true, rawInput: { command: 'npm test -- --reporter dot' }, permissionId: 'p1',
      },
    },
    permissions: {
      p0: {
        permissionId: 'p0', toolCallId: 'tc-edit', state: 'selected', optionId: 'allow', answeredBy: 'person', requestedAt: 1,
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
      },
      p1: {
        permissionId: 'p1', toolCallId: 'tc-test', state: 'waiting', requestedAt: 2,
        // What the extension computed from the intent (the card no longer parses rawInput itself).
        display: [{ type: 'command', line: 'npm test -- --reporter dot', argv: ['npm test -- --reporter dot'], cwd: '/work/demo', envNames: [] }],
        options: [
          { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'allow-always', name: 'Always allow npm test', kind: 'allow_always' },
          { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
        ],
      },
    },
    terminals: {
      t1: {
        terminalId: 't1', commandLine: 'npm run build', cwd: '/work/demo', truncated: false,
        output: '> demo@1.0.0 build\n> tsc -p .\n\nsrc/greet.ts compiled\nDone in 1.2s\n', exitStatus: { exitCode: 0, signal: null },
      },
    },
    plan: [
      { content: 'Read greet.ts', priority: 'medium', status: 'completed' },
      { content: 'Add the excited flag', priority: 'high', status: 'completed' },
      { content: 'Run the test suite', priority: 'medium', status: 'in_progress' },
      { content: 'Update the README example', priority: 'low', status: 'pending' },
    ],
    availableCommands: [],
    rev: 40,
    nextEntry: 8,
  };
}

/** A finished earlier turn with a refusal and a launch error, for the remaining entry kinds. */
export function endedState(): SessionState {
  const s = richState();
  s.status = 'ready';
  s.entries.push(
    { kind: 'turn_end', id: 'e8', stopReason: 'refusal' },
    {
      kind: 'notice', id: 'e9', severity: 'error', text: 'The agent exited during startup.',
      error: { message: 'The agent exited during startup.', commandLine: 'claude-code-acp --verbose', pathUsed: '/usr/local/bin:/usr/bin', exitCode: 127, signal: null, stderrTail: ['line 1', 'fatal: not logged in'] },
    },
  );
  s.nextEntry = 10;
  return s;
}

export const SESSIONS: SessionSummary[] = [
  { key: 's1', agentName: 'Claude Code', title: 'Add excited flag to greet()', status: 'prompting', waiting: 1 },
  { key: 's2', agentName: 'Demo agent', title: 'Explain the build', status: 'ready', waiting: 0 },
];

export function snapshot(current: SessionState | null, extra: Partial<Extract<HostMessage, { type: 'snapshot' }>> = {}): Extract<HostMessage, { type: 'snapshot' }> {
  return { type: 'snapshot', agents: AGENTS, sessions: SESSIONS, current, omittedEntries: 0, workspaceTrusted: true, hasWorkspace: true, ...extra };
}
