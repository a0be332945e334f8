/**
 * The question card (ACP `elicitation/create`) in the session page: the agent's message as text, a
 * form from the requested schema whose typing survives patches, the answer posted with the form's
 * values, the extension's problems shown on the card, the URL as text (no link), and no buttons once
 * the question stopped waiting.
 */
import assert from 'node:assert/strict';
import type { ElicitationView, SessionState } from '../../../src/acp/session/types';
import { richState, snapshot } from './fixtures';
import { type Harness, mount } from './harness';

const form = (over: Partial<ElicitationView> = {}): ElicitationView => ({
  elicitationKey: 'q-1',
  mode: 'form',
  message: 'Deploy <img src=x onerror=alert(1)> where?',
  requestedSchema: { type: 'object', properties: { env: { type: 'string', title: 'Environment' }, replicas: { type: 'integer', minimum: 1 } }, required: ['env'] },
  state: 'waiting',
  requestedAt: 1,
  ...over,
});

function withCard(v: ElicitationView): SessionState {
  const s = richState();
  s.entries.push({ kind: 'elicitation', id: 'e90', elicitation: v });
  return s;
}

describe('question card (elicitation/create)', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('shows the message as text and a field per property; Accept posts the values; problems show on the card and keep the typing', () => {
    h = mount();
    h.host.send(snapshot(withCard(form())));
    h.frame();
    const card = h.$('.elicitation-card')!;
    assert.equal(card.querySelector('.elic-message')?.textContent, 'Deploy <img src=x onerror=alert(1)> where?');
    assert.equal(card.querySelector('img'), null, 'no markup from the agent');
    const env = card.querySelector<HTMLElement & { value?: string }>('[data-name="env"]')!;
    env.value = 'staging';
    (card.querySelector('[data-name="replicas"]') as HTMLElement & { value?: string }).value = '2';
    (card.querySelector('[data-action="accept"]') as HTMLElement).click();
    assert.deepEqual(h.host.ofType('answerElicitation').at(-1), { type: 'answerElicitation', key: 's1', elicitationKey: 'q-1', action: 'accept', content: { env: 'staging', replicas: 2 } });
    h.host.send({ type: 'elicitationProblems', key: 's1', elicitationKey: 'q-1', problems: ['replicas must be <= 1'] });
    assert.match(card.querySelector('.elic-problems')?.textContent ?? '', /replicas must be <= 1/);
    assert.equal((h.$('[data-name="env"]') as HTMLElement & { value?: string }).value, 'staging', 'the typing is kept');
    // A patch that leaves the card waiting does not rebuild it.
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'entry', entry: { kind: 'elicitation', id: 'e90', elicitation: form() } }] });
    h.frame();
    assert.equal((h.$('[data-name="env"]') as HTMLElement & { value?: string }).value, 'staging');
  });

  it('a required field left empty is refused on the page before anything is posted', () => {
    h = mount();
    h.host.send(snapshot(withCard(form())));
    h.frame();
    (h.$('[data-action="accept"]') as HTMLElement).click();
    assert.equal(h.host.ofType('answerElicitation').length, 0);
    assert.match(h.$('.elic-problems')?.textContent ?? '', /Environment is required/);
  });

  it('URL mode: the whole URL as text (no link), the host named; Open asks the extension; answered cards have no buttons', () => {
    h = mount();
    const url = 'https://login.example.com/device?code=ABCD-1234&very=long&' + 'x'.repeat(200);
    h.host.send(snapshot(withCard(form({ mode: 'url', requestedSchema: undefined, url, host: 'login.example.com', elicitationId: 'el' }))));
    h.frame();
    const card = h.$('.elicitation-card')!;
    assert.equal(card.querySelector('.elic-url')?.textContent, url);
    assert.equal(card.querySelector('a'), null, 'no link');
    assert.match(card.querySelector('.elic-host')?.textContent ?? '', /login\.example\.com/);
    (card.querySelector('[data-action="accept"]') as HTMLElement).click();
    assert.deepEqual(h.host.ofType('openElicitationUrl'), [{ type: 'openElicitationUrl', key: 's1', elicitationKey: 'q-1' }]);
    h.host.send({ type: 'patches', key: 's1', rev: h.app.currentState!.rev + 1, patches: [{ op: 'entry', entry: { kind: 'elicitation', id: 'e90', elicitation: form({ mode: 'url', url, state: 'cancel', answeredBy: 'cancel' }) } }] });
    h.frame();
    assert.equal(h.$$('.elicitation-card .elic-button').length, 0);
    assert.match(h.$('.elic-result')?.textContent ?? '', /Cancelled/);
  });
});
