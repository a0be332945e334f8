/**
 * The gate's property test (see gateProperty.test.ts), for "Allow … and run again": a real
 * SessionController and EffectPolicy, a hostile agent whose sandboxed commands are refused any hosts
 * it likes (any violation lines, as the sandbox's proxy writes them or not), a person clicking any
 * host a terminal's card offers, and a page posting any host for any terminal. The invariants:
 * what the card offers is what the click checks against; every host a command then runs with, beyond
 * the person's settings, is one a card showed and the person clicked; and each such host is one
 * literal host that the sandbox library reads as that host alone (no `*.amazonaws.com`, no user-info,
 * no port range, no IP-literal trick).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type * as acp from '@agentclientprotocol/sdk';
import { SessionController, type FileSystemPort, type TerminalsPort } from '../../../src/acp/sessionController';
import type { TerminalView } from '../../../src/acp/session/types';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import { blockedHosts, buildProfile, type SandboxProfile } from '../../../src/sandbox/profile';
import { settle } from '../../fakes/directSession';

const CWD = '/w';
/** The person's own settings: a pattern they wrote themselves stays theirs. */
const SETTINGS_HOSTS = ['*.npmjs.org'];

/** Hosts an agent can make a command try to reach (and so be refused). */
const hostish = fc.oneof(
  fc.constantFrom('*.amazonaws.com', '*', 'amazonaws.com', 'user@evil.example', 'evil.example', 'EVIL.example', '127.1', '0x7f.0.0.1', '127.0.0.1', '::1', '[::1]', '::ffff:127.0.0.1', 'example.com.', 'exa\u200bmple.com', 'a..b', 'localhost'),
  fc.stringMatching(/^[a-zA-Z0-9.*:@[\]_%-]{1,30}$/),
);
const portish = fc.oneof(fc.constantFrom('443', '80', '8080', '1-65535', '0', '0443'), fc.integer({ min: 1, max: 65535 }).map(String));
const reason = fc.constantFrom('host is not on the allow list', 'host is not on the allow list', 'malformed host', 'user denied');
/** One violation line: the proxy's own form, an injected copy of it, or noise. */
const violation = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(hostish, portish, reason).map(([h, p, r]) => `deny network-outbound ${h}:${p} (${r})`) },
  { weight: 1, arbitrary: fc.tuple(hostish, portish).map(([h, p]) => `deny file-write /w/x deny network-outbound ${h}:${p} (host is not on the allow list)`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

type Step =
  | { t: 'run'; command: string; violations: string[] }
  /** The person clicks host `host` (n-th) of terminal `which` (n-th) as its card shows them. */
  | { t: 'click'; which: number; host: number }
  /** The page (or an API caller) names any host for any terminal. */
  | { t: 'post'; which: number; host: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('run' as const), command: fc.constantFrom('curl a', 'curl b', 'npm ci'), violations: fc.array(violation, { maxLength: 6 }) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('click' as const), which: fc.nat(5), host: fc.nat(7) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('post' as const), which: fc.nat(5), host: fc.oneof(hostish, fc.tuple(hostish, portish).map(([h, p]) => `${h}:${p}`)) }) },
);

/** Sandboxed terminals whose refusals are what the agent's command chose; the parser is the real one. */
class RefusedTerminals implements TerminalsPort {
  readonly started: { id: string; profile?: SandboxProfile }[] = [];
  private readonly runs = new Map<string, { params: acp.CreateTerminalRequest; profile: SandboxProfile; blocked: string[] }>();
  private listener: ((t: TerminalView) => void) | undefined;
  /** What each command is refused when it runs (the agent's choice). */
  readonly refusals = new Map<string, string>();

  async create(params: acp.CreateTerminalRequest, sandbox?: SandboxProfile): Promise<string> {
    const id = `t${this.started.length + 1}`;
    this.started.push({ id, profile: sandbox });
    const blocked = sandbox ? blockedHosts(this.refusals.get(params.command) ?? '') : [];
    if (sandbox) this.runs.set(id, { params, profile: sandbox, blocked });
    this.listener?.({ terminalId: id, commandLine: params.command, cwd: CWD, output: '', truncated: false, exitStatus: { exitCode: 1, signal: null }, ...(blocked.length ? { sandboxBlocked: blocked } : {}) });
    return id;
  }
  launched(id: string) {
    const r = this.runs.get(id);
    return r && { params: r.params, profile: r.profile };
  }
  blockedHosts = (id: string): string[] => {
    return this.runs.get(id)?.blocked ?? [];
  };
  output(): acp.TerminalOutputResponse {
    return { output: '', truncated: false };
  }
  async waitForExit(): Promise<acp.WaitForTerminalExitResponse> {
    return { exitCode: 1 };
  }
  async kill(): Promise<void> {}
  async release(): Promise<void> {}
  async disposeAll(): Promise<void> {}
  onDidChange(listener: (t: TerminalView) => void) {
    this.listener = listener;
    return { dispose: () => (this.listener = undefined) };
  }
}

const noFiles: FileSystemPort = { read: async () => ({ content: '' }), write: async () => undefined, turnStarted: () => undefined };

/** The library's matcher and canonical form (ESM: loaded once). */
let lib: {
  isValidAllowedDomainEntry(e: string): boolean;
  splitDomainPatternPort(e: string): { hostPattern: string };
  canonicalizeHost(h: string): string | undefined;
};

async function runSteps(steps: Step[]): Promise<void> {
  const terminals = new RefusedTerminals();
  const policy = new EffectPolicy({
    defaults: () => ({ write: 'ask', command: 'allow', dryRun: false }),
    roots: () => [CWD],
    readCurrent: async () => null,
    // As the window builds it: the settings' hosts and the hosts the person allowed from a card.
    sandbox: async (who) => ({ mode: 'ask', profile: buildProfile({ roots: [CWD], tmpDir: '/tmp', home: '/h', editorStorage: [], allowedHosts: [...SETTINGS_HOSTS, ...(who.sandboxHosts ?? [])] }) }),
  });
  const c = new SessionController({ key: 'k', agentId: 'hostile', agentName: 'Hostile', cwd: CWD }, noFiles, terminals, policy, Date.now);
  /** Hosts a person clicked on a card that showed them. */
  const clicked = new Set<string>();
  const story: string[] = [];
  try {
    for (const s of steps) {
      const ids = Object.keys(c.state.terminals);
      if (s.t === 'run') {
        terminals.refusals.set(s.command, s.violations.join('\n'));
        await c.createTerminal({ sessionId: 's', command: s.command }).catch(() => undefined);
        story.push(`agent runs ${s.command}, refused ${JSON.stringify(s.violations)}`);
      } else if (ids.length) {
        const id = ids[s.which % ids.length];
        const shown = c.state.terminals[id]?.sandboxBlocked ?? [];
        // What the card offers is what the click is checked against.
        assert.deepEqual(shown, terminals.blockedHosts(id), `the card of ${id} shows other hosts than the click checks`);
        const host = s.t === 'click' ? shown[s.host % Math.max(1, shown.length)] : s.host;
        if (host === undefined) continue;
        let ok = true;
        await c.allowHostAndRerun(id, host).catch(() => (ok = false));
        if (ok && shown.includes(host)) clicked.add(host);
        story.push(`${s.t === 'click' ? 'person clicks' : 'page posts'} ${JSON.stringify(host)} on ${id} (card shows ${JSON.stringify(shown)}) → ${ok ? 'allowed' : 'refused'}`);
      }
      await settle(c);
    }
    for (const run of terminals.started) {
      for (const h of run.profile?.allowedHosts ?? []) {
        if (SETTINGS_HOSTS.includes(h)) continue;
        const why = `${run.id} ran with ${JSON.stringify(h)}\n${story.join('\n')}`;
        assert.ok(clicked.has(h), `not a host a card showed and the person clicked: ${why}`);
        // One literal host, read by the library as that host alone.
        assert.ok(lib.isValidAllowedDomainEntry(h), `the library refuses it: ${why}`);
        const { hostPattern } = lib.splitDomainPatternPort(h);
        assert.ok(!hostPattern.includes('*') && !h.includes('@') && lib.canonicalizeHost(hostPattern) === hostPattern, `a pattern or another spelling: ${why}`);
        assert.ok(/^(?:[a-z0-9_-]+\.)+[a-z0-9_-]+(?::[1-9][0-9]*)?$|^localhost(?::[1-9][0-9]*)?$/.test(h), `not a literal host name or address: ${why}`);
      }
    }
  } finally {
    await c.dispose();
  }
}

describe('the gate holds for "Allow host and run again" under any refusals and clicks (fast-check)', function () {
  this.timeout(120_000);
  const seed = Number(process.env.GATE_PROPERTY_SEED ?? 16_2026);
  const numRuns = Number(process.env.GATE_PROPERTY_RUNS ?? 300);

  before(async () => {
    const dp = (await import('@anthropic-ai/sandbox-runtime/dist/sandbox/domain-pattern.js')) as unknown as typeof lib;
    const pp = (await import('@anthropic-ai/sandbox-runtime/dist/sandbox/parent-proxy.js')) as unknown as typeof lib;
    lib = { isValidAllowedDomainEntry: dp.isValidAllowedDomainEntry, splitDomainPatternPort: dp.splitDomainPatternPort, canonicalizeHost: pp.canonicalizeHost };
  });

  it('the click checks again: a port that records a pattern as refused does not get it allowed', async () => {
    // Another TerminalsPort (or a record made before hosts were checked) names `*.amazonaws.com:443`.
    const terminals = new RefusedTerminals();
    terminals.blockedHosts = () => ['*.amazonaws.com:443', 'user@evil.example:443'];
    const policy = new EffectPolicy({
      defaults: () => ({ write: 'ask', command: 'allow', dryRun: false }),
      roots: () => [CWD],
      readCurrent: async () => null,
      sandbox: async (who) => ({ mode: 'ask', profile: buildProfile({ roots: [CWD], tmpDir: '/tmp', home: '/h', editorStorage: [], allowedHosts: [...(who.sandboxHosts ?? [])] }) }),
    });
    const c = new SessionController({ key: 'k', agentId: 'hostile', agentName: 'Hostile', cwd: CWD }, noFiles, terminals, policy, Date.now);
    try {
      await c.createTerminal({ sessionId: 's', command: 'curl a' });
      for (const host of ['*.amazonaws.com:443', 'user@evil.example:443']) await assert.rejects(c.allowHostAndRerun('t1', host), /not one literal host/);
      assert.deepEqual(terminals.started.map((r) => r.profile?.allowedHosts), [[]], 'nothing ran again, with no host added');
    } finally {
      await c.dispose();
    }
  });

  it('a sandboxed command runs only with hosts a card showed and the person clicked, each one literal host', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 16 }), runSteps), { seed, numRuns });
  });
});
