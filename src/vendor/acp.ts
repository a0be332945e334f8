/**
 * The part of `@agentclientprotocol/sdk` the extension uses at run time, built as a bundle of its
 * own (`dist/vendor/acp.js`) and required on first use through `src/acp/sdk.ts`, so that loading
 * the extension does not parse or evaluate it (PF6). Add an export here before using it.
 */
export { AgentApp, client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
// The SDK checks what an agent sends as a request or notification against the ACP schema, but not
// its answers to our requests (`initialize`, `session/new|load|resume`, `session/set_config_option`,
// `session/list`). Its generated zod schemas implement the schema's `x-deserialize-skip-invalid-items`
// and `default-on-error` markings; the package does not export them, so they come from their file.
// `zSessionNotification` is the fallback of our own parser of `session/update` (src/acp/sessionNotification.ts).
export {
  zInitializeResponse,
  zListSessionsResponse,
  zLoadSessionResponse,
  zNewSessionResponse,
  zResumeSessionResponse,
  zSessionNotification,
  zSetSessionConfigOptionResponse,
} from '../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';
