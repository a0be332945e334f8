import assert from 'node:assert/strict';
import { createSessionState, type SessionState } from '../../../src/acp/session/types';
import { earlierPage, elideShownTexts, mergeEarlier, PatchBatch, patchesForPage, SHOWN_TEXT_CHARS, windowState } from '../../../src/acp/session/window';
import { applyPatch } from '../../../src/acp/session/patch';
import type { SessionPatch, ToolCallView } from '../../../src/acp/session/types';

/** `n` entries: tool calls (each with a permission, every tenth with a terminal) and messages. */
function sessionOf(n: number): SessionState {
  const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
  for (let i = 0; i < n; i++) {
    if (i % 2) {
      s.entries.push({ kind: 'agent', id: `e${i}`, text: `m${i}`, attachments: [] });
      continue;
    }
    s.entries.push({ kind: 'tool_call', id: `e${i}`, toolCallId: `t${i}` });
    s.toolCalls[`t${i}`] = { toolCallId: `t${i}`, title: `T${i}`, kind: 'execute', status: 'completed', content: i % 10 === 0 ? [{ type: 'terminal', terminalId: `term${i}` }] : [], locations: [], placeholder: false, permissionId: `p${i}` };
    s.permissions[`p${i}`] = { permissionId: `p${i}`, toolCallId: `t${i}`, options: [], state: 'selected', requestedAt: 0 };
    if (i % 10 === 0) s.terminals[`term${i}`] = { terminalId: `term${i}`, commandLine: 'ls', cwd: '/w', output: '', truncated: false, released: false } as SessionState['terminals'][string];
  }
  s.nextEntry = n;
  return s;
}

describe('session windows (what a page is sent)', () => {
  it('sends a small session whole, the same object', () => {
    const s = sessionOf(10);
    assert.deepEqual(windowState(s), { state: s, omitted: 0 });
  });

  it('keeps the newest entries with exactly the tool calls, permissions and terminals they show', () => {
    const s = sessionOf(1000);
    const { state: w, omitted } = windowState(s, 100);
    assert.equal(omitted, 900);
    assert.deepEqual(w.entries.map((e) => e.id), s.entries.slice(900).map((e) => e.id));
    assert.deepEqual(Object.keys(w.toolCalls).sort(), Array.from({ length: 50 }, (_, i) => `t${900 + 2 * i}`).sort());
    assert.deepEqual(Object.keys(w.terminals).sort(), Array.from({ length: 10 }, (_, i) => `term${900 + 10 * i}`).sort());
    assert.ok(w.permissions.p900 && w.permissions.p998 && !w.permissions.p898);
    assert.equal(w.rev, s.rev);
    assert.equal(s.entries.length, 1000, 'the session itself is untouched');
  });

  it('reaches back to the card of a permission that waits, so the page can answer it', () => {
    const s = sessionOf(1000);
    s.permissions.p500.state = 'waiting';
    const { state: w, omitted } = windowState(s, 100);
    assert.equal(omitted, 500);
    assert.equal(w.entries[0].id, 'e500');
    assert.equal(w.toolCalls.t500.permissionId, 'p500');
    assert.equal(w.permissions.p500.state, 'waiting');
  });

  it('pages backwards until the first entry, and a page merges in front with the newer maps kept', () => {
    const s = sessionOf(1000);
    const page = windowState(s, 100).state;
    const view = structuredClone(page);
    let omitted = 900;
    while (omitted > 0) {
      const p = earlierPage(s, view.entries[0].id, 300)!;
      assert.equal(p.omitted, Math.max(0, omitted - 300));
      assert.ok(mergeEarlier(view, view.entries[0].id, structuredClone(p)));
      omitted = p.omitted;
    }
    assert.deepEqual(view.entries, s.entries);
    assert.deepEqual(Object.keys(view.toolCalls).sort(), Object.keys(s.toolCalls).sort());
    assert.deepEqual(Object.keys(view.terminals).sort(), Object.keys(s.terminals).sort());
  });

  it('says when a page cannot be built or does not join, and changes nothing then', () => {
    const s = sessionOf(20);
    assert.equal(earlierPage(s, 'e-unknown'), undefined);
    assert.deepEqual(earlierPage(s, 'e0')!.entries, []);
    const view = windowState(s, 5).state;
    const before = structuredClone(view);
    assert.equal(mergeEarlier(view, 'e3', earlierPage(s, 'e3')!), false);
    assert.deepEqual(view, before);
  });

  describe('a tool re-sending its growing output (PF10)', () => {
    const call = (id: string, chars: number): ToolCallView => ({ toolCallId: id, title: 'Build', kind: 'execute', status: 'in_progress', content: [{ type: 'text', text: 'x'.repeat(chars) }], locations: [], placeholder: false });

    it('sends a batch one view per call, the last, with its text cut at SHOWN_TEXT_CHARS and its length', () => {
      const batch: SessionPatch[] = [
        { op: 'toolCall', toolCall: call('a', 10) },
        { op: 'appendText', entryId: 'e1', text: 'hi' },
        { op: 'toolCall', toolCall: call('b', 5) },
        { op: 'toolCall', toolCall: call('a', 2 * 1024 * 1024) },
      ];
      const out = patchesForPage(batch);
      assert.deepEqual(out.map((p) => p.op), ['appendText', 'toolCall', 'toolCall']);
      const a = out[2] as Extract<SessionPatch, { op: 'toolCall' }>;
      assert.equal(a.toolCall.toolCallId, 'a');
      assert.deepEqual(a.toolCall.content.map((c) => (c.type === 'text' ? [c.text.length, c.totalChars] : [])), [[SHOWN_TEXT_CHARS, 2 * 1024 * 1024]]);
      const kept = (batch[3] as Extract<SessionPatch, { op: 'toolCall' }>).toolCall.content[0];
      assert.equal(kept.type === 'text' ? kept.text.length : 0, 2 * 1024 * 1024, 'the session keeps the whole text');
      assert.equal((out[1] as Extract<SessionPatch, { op: 'toolCall' }>).toolCall, (batch[2] as Extract<SessionPatch, { op: 'toolCall' }>).toolCall, 'a short view is sent as it is');
    });

    it('cuts long tool texts in a snapshot, small or windowed, and leaves the session alone', () => {
      for (const n of [10, 1000]) {
        const s = sessionOf(n);
        s.toolCalls.t0 = call('t0', 300_000);
        if (n > 10) s.entries.push({ kind: 'tool_call', id: `e${n}`, toolCallId: 't0' });
        const { state: w } = windowState(s, 100);
        const c = w.toolCalls.t0.content[0];
        assert.ok(c.type === 'text' && c.text.length === SHOWN_TEXT_CHARS && c.totalChars === 300_000, `${n} entries`);
        const original = s.toolCalls.t0.content[0];
        assert.ok(original.type === 'text' && original.text.length === 300_000);
      }
    });

    it('joins consecutive appends to one entry, and the page ends where it would have', () => {
      const base = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
      base.entries.push({ kind: 'agent', id: 'e0', text: 'a', attachments: [] }, { kind: 'agent', id: 'e1', text: 'b', attachments: [] });
      const batch: SessionPatch[] = [
        ...Array.from({ length: 500 }, (_, i): SessionPatch => ({ op: 'appendText', entryId: 'e0', text: `${i} ` })),
        { op: 'appendText', entryId: 'e1', text: 'x' },
        { op: 'appendText', entryId: 'e0', text: 'y' },
        { op: 'appendText', entryId: 'e0', text: 'z' },
      ];
      const out = patchesForPage(batch);
      assert.deepEqual(out.map((p) => (p.op === 'appendText' ? p.entryId : p.op)), ['e0', 'e1', 'e0']);
      const one = structuredClone(base);
      const other = structuredClone(base);
      for (const p of batch) applyPatch(one, p);
      for (const p of out) applyPatch(other, p);
      assert.deepEqual(other.entries, one.entries);
      assert.equal((batch[0] as Extract<SessionPatch, { op: 'appendText' }>).text, '0 ', 'the batch itself is left as it was');
      // A tool call patch that a later one of the same call replaces does not split a run of appends.
      const t = (title: string): SessionPatch => ({ op: 'toolCall', toolCall: { ...call('t', 0), title } });
      const across = patchesForPage([{ op: 'appendText', entryId: 'e0', text: 'p' }, t('first'), { op: 'appendText', entryId: 'e0', text: 'q' }, t('last')]);
      assert.deepEqual(across.map((p) => (p.op === 'appendText' ? p.text : p.op === 'toolCall' ? p.toolCall.title : p.op)), ['pq', 'last']);
    });

    it('a batch joins appends as they come and gives the page what patchesForPage gives of them all', () => {
      let seed = 3;
      const r = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
      const t = (title: string): SessionPatch => ({ op: 'toolCall', toolCall: { ...call(r() < 0.5 ? 't' : 'u', 0), title } });
      for (let round = 0; round < 30; round++) {
        const batch = new PatchBatch();
        assert.equal(batch.empty, true);
        const all: SessionPatch[] = [];
        let rev = 100 * round;
        const first = rev;
        for (let change = 0; change < 40; change++) {
          const patches: SessionPatch[] = Array.from({ length: 1 + Math.floor(r() * 5) }, (_, i) => {
            const x = r();
            if (x < 0.7) return { op: 'appendText', entryId: x < 0.6 ? 'e0' : 'e1', text: `${change}.${i}|`.repeat(1 + Math.floor(r() * 300)) };
            if (x < 0.9) return t(`${change}.${i}`);
            return { op: 'meta', meta: { title: `t${change}` } };
          });
          rev += patches.length;
          batch.push(patches, rev);
          all.push(...patches);
        }
        assert.deepEqual([batch.fromRev, batch.rev], [first, rev]);
        assert.deepEqual(batch.take(), patchesForPage(all), `round ${round}`);
        assert.equal(batch.empty, true);
      }
      const batch = new PatchBatch();
      batch.push([{ op: 'appendText', entryId: 'e0', text: 'x' }], 1);
      batch.clear();
      assert.equal(batch.empty, true);
      assert.deepEqual(batch.take(), []);
    });

    it('leaves out the text a page already has, and the page puts it back', () => {
      const growing = (n: number): ToolCallView => ({ ...call('a', 0), content: [{ type: 'text', text: `${'x'.repeat(SHOWN_TEXT_CHARS)}${'y'.repeat(n)}` }, { type: 'text', text: `tail ${n}`.repeat(1000) }] });
      const page = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
      const shown = new Map<string, (string | undefined)[]>();
      let posted = 0;
      for (let n = 1; n <= 50; n++) {
        const out = elideShownTexts(patchesForPage([{ op: 'toolCall', toolCall: growing(n * 1000) }]), shown);
        posted += JSON.stringify(out).length;
        for (const p of out) applyPatch(page, p);
        // The page holds what it would hold had every text been sent.
        assert.deepEqual(page.toolCalls.a, (patchesForPage([{ op: 'toolCall', toolCall: growing(n * 1000) }])[0] as Extract<SessionPatch, { op: 'toolCall' }>).toolCall);
      }
      // The 100,000 shown characters went once; the changing second text every time.
      assert.ok(posted < 2 * SHOWN_TEXT_CHARS + 50 * 10_000, `${posted} characters posted`);
      // Forgetting what was sent (a snapshot) sends the text again.
      shown.clear();
      const again = elideShownTexts(patchesForPage([{ op: 'toolCall', toolCall: growing(1) }]), shown)[0] as Extract<SessionPatch, { op: 'toolCall' }>;
      assert.equal(again.toolCall.content[0].type === 'text' && again.toolCall.content[0].text.length, SHOWN_TEXT_CHARS);
    });
  });
});
