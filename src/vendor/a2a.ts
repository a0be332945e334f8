/**
 * The parts of `@a2a-js/sdk` (and `jose`, which checks card signatures) the extension uses at run
 * time, built as a bundle of their own (`dist/vendor/a2a.js`) and required when a remote agent is
 * first used, through `src/a2a/sdk.ts` (PF6). Add an export here before using it.
 */
export { AGENT_CARD_PATH, Role, TaskState, verifyAgentCardSignature } from '@a2a-js/sdk';
export { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
export { calculateJwkThumbprint, importJWK } from 'jose';
