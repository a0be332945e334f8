/**
 * The `elicit` scenario: the agent asks the person a question with ACP `elicitation/create`
 * (schema 1.21) and reports the answer's action and the names of the fields it got. A prompt that
 * contains `url` asks in URL mode (a page to open, then `elicitation/complete`); any other prompt
 * asks with a form (a required text, a number with bounds, a choice, a switch). A client that does
 * not advertise the mode is told so and not asked.
 */
import type { CreateElicitationResponse, StopReason } from '@agentclientprotocol/sdk';
import { errorText, type DemoTurn } from './turn';

/** The page the URL-mode question names (never fetched: the test only checks what is shown). */
export const ELICIT_URL = 'https://login.example.com/device?user_code=WDJB-MJHT&client=switchboard-demo';

/** Runs the question; returns `end_turn` (or throws TurnCancelled when the turn is stopped). */
export async function elicitTurn(turn: DemoTurn): Promise<StopReason> {
  const url = /\burl\b/i.test(turn.promptText());
  const caps = turn.caps.elicitation;
  if (!caps || !(url ? caps.url : caps.form)) {
    await turn.say([`elicit: the client does not offer ${url ? 'URL' : 'form'}-mode elicitation.\n`], 0);
    return 'end_turn';
  }
  let answer: CreateElicitationResponse;
  try {
    answer = await turn.race(
      url
        ? turn.client.request('elicitation/create', { sessionId: turn.sessionId, mode: 'url', message: 'Sign in to the demo service in your browser, then come back here.', elicitationId: `demo-${turn.memory.turns}`, url: ELICIT_URL })
        : turn.client.request('elicitation/create', {
            sessionId: turn.sessionId,
            mode: 'form',
            message: 'Where should I deploy? I need a few details before I go on.',
            requestedSchema: {
              type: 'object',
              properties: {
                environment: { type: 'string', title: 'Environment', description: 'The name of the environment, e.g. staging.', minLength: 2 },
                replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 2 },
                region: { type: 'string', title: 'Region', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'United States' }] },
                dryRun: { type: 'boolean', title: 'Dry run first', default: true },
              },
              required: ['environment', 'region'],
            },
          }),
    );
  } catch (err) {
    if (turn.signal.aborted) throw err;
    await turn.say([`elicit: the client refused the question: ${errorText(err)}\n`], 0);
    return 'end_turn';
  }
  if (url && answer.action === 'accept') await turn.client.notify('elicitation/complete', { elicitationId: `demo-${turn.memory.turns}` });
  const content = 'content' in answer && answer.content && typeof answer.content === 'object' ? Object.keys(answer.content) : [];
  await turn.say([`elicit: ${answer.action}${content.length ? ` (${content.join(', ')})` : ''}\n`], 0);
  return 'end_turn';
}
