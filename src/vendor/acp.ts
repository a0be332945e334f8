/**
 * The part of `@agentclientprotocol/sdk` the extension uses at run time, built as a bundle of its
 * own (`dist/vendor/acp.js`) and required on first use through `src/acp/sdk.ts`, so that loading
 * the extension does not parse or evaluate it (PF6). Add an export here before using it.
 */
export { AgentApp, client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
