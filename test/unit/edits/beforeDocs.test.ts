/**
 * The read-only "before" documents: one owner per kind under one scheme, URIs that name any change
 * id and path, and a document nobody can answer says so rather than showing an empty file.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BeforeDocuments, beforeQuery, GONE_TEXT, parseBeforeQuery, UNKNOWN_TEXT, type BeforeRef } from '../../../src/edits/beforeDocs';

describe('"before" documents', () => {
  it('a query names its document back, whatever the change id and path hold', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 200 }), (key, p) => {
        const change: BeforeRef = { of: 'change', id: `${key}#3#/w/${p}` };
        assert.deepEqual(parseBeforeQuery(beforeQuery(change)), change);
        const wt: BeforeRef = { of: 'worktree', id: '0123abcd', rel: p };
        assert.deepEqual(parseBeforeQuery(beforeQuery(wt)), wt);
      }),
    );
    for (const id of ['s#1#/w/a b.ts', 's#1#/w/a+b&c=d%20e?.ts', 's#1#/w/ü/😀.ts']) assert.deepEqual(parseBeforeQuery(beforeQuery({ of: 'change', id })), { of: 'change', id });
    assert.equal(parseBeforeQuery('id=s%231%23%2Fw%2Fa.ts'), undefined, 'a query without its kind is not ours');
    assert.equal(parseBeforeQuery('of=worktree&id=nothex!!&rel=a'), undefined);
  });

  it('each kind has one owner: a second one is refused, so it can never answer the first one\'s documents', async () => {
    const docs = new BeforeDocuments();
    const own = docs.serve('change', () => 'review');
    assert.throws(() => docs.serve('change', () => ''), /already have an owner/);
    docs.serve('worktree', () => 'worktree');
    assert.equal(await docs.text(beforeQuery({ of: 'change', id: 'x' })), 'review');
    assert.equal(await docs.text(beforeQuery({ of: 'worktree', id: '0123abcd', rel: 'a' })), 'worktree');
    own.dispose();
    assert.equal(await docs.text(beforeQuery({ of: 'change', id: 'x' })), UNKNOWN_TEXT);
    docs.serve('change', () => 'again');
    assert.equal(await docs.text(beforeQuery({ of: 'change', id: 'x' })), 'again');
  });

  it('an empty text is a file that did not exist; a gone change, an unknown document and a failed read say so', async () => {
    const docs = new BeforeDocuments();
    docs.serve('change', (ref) => (ref.id === 'created' ? '' : undefined));
    docs.serve('worktree', async () => {
      throw new Error('No worktree "0123abcd".');
    });
    assert.equal(await docs.text(beforeQuery({ of: 'change', id: 'created' })), '');
    assert.equal(await docs.text(beforeQuery({ of: 'empty' })), '');
    assert.equal(await docs.text(beforeQuery({ of: 'change', id: 'cleared' })), GONE_TEXT);
    assert.equal(await docs.text('id=whatever'), UNKNOWN_TEXT);
    assert.match(await docs.text(beforeQuery({ of: 'worktree', id: '0123abcd', rel: 'a' })), /could not be read: No worktree/);
  });
});
