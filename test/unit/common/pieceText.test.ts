/**
 * PieceText / appendPieces: a streamed message appended in flat pieces holds exactly what `+=`
 * would, across piece boundaries, surrogate pairs split between chunks, and a text set by someone
 * else between appends.
 */
import * as assert from 'node:assert/strict';
import { PIECE_CHARS, PieceText, appendPieces } from '../../../src/common/pieceText';
import { applyPatch } from '../../../src/acp/session/patch';
import { createSessionState } from '../../../src/acp/session/types';

/** A deterministic generator, so a failure can be run again. */
function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

describe('PieceText', () => {
  it('holds what += would, for chunks of every size around a piece', () => {
    const r = rng(7);
    const alphabet = ['a', 'é', '中', '😀'.slice(0, 1), '😀'.slice(1), '\n', '😀'];
    for (let round = 0; round < 20; round++) {
      const p = new PieceText(round % 2 ? 'start:' : '');
      let want = round % 2 ? 'start:' : '';
      while (want.length < PIECE_CHARS * 3 + 17) {
        const n = r() < 0.05 ? Math.floor(r() * PIECE_CHARS * 1.5) : Math.floor(r() * 40);
        let s = '';
        for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
        p.append(s);
        want += s;
        assert.equal(p.length, want.length);
      }
      assert.equal(p.text, want);
    }
  });

  it('a message entry grows through appendText patches, and starts over from a text set in between', () => {
    const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/' });
    applyPatch(s, { op: 'entry', entry: { kind: 'agent', id: 'e0', text: 'hi', attachments: [] } });
    let want = 'hi';
    for (let i = 0; i < 3000; i++) {
      const chunk = ` ${i}`;
      applyPatch(s, { op: 'appendText', entryId: 'e0', text: chunk });
      want += chunk;
    }
    const e = s.entries[0] as { text: string };
    assert.equal(e.text, want);
    // Someone else sets the text (a relabel writes the entry whole; a test, a migration): kept.
    e.text = 'replaced';
    appendPieces(e, '!');
    assert.equal(e.text, 'replaced!');
    applyPatch(s, { op: 'entry', entry: { kind: 'agent', id: 'e0', text: 'new entry', attachments: [] } });
    applyPatch(s, { op: 'appendText', entryId: 'e0', text: ' and more' });
    assert.equal((s.entries[0] as { text: string }).text, 'new entry and more');
  });
});
