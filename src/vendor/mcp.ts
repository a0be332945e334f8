/**
 * The parts of the MCP SDKs the extension uses at run time (client, its ajv validator, server, the
 * Node HTTP adapter, the tasks and apps extensions), built as one bundle of their own
 * (`dist/vendor/mcp.js`, so they share the SDK core) and required on first use through
 * `src/mcp/sdk.ts` (PF6). Add an export here before using it.
 */
import type * as AppBridgeModule from '@modelcontextprotocol/ext-apps/app-bridge';

export { Client, fromJsonSchema, parseJSONRPCMessage, serializeMessage, specTypeSchemas, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
export { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
export { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
export { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

/**
 * The host side of MCP Apps, evaluated on first use (~55 ms: its zod schemas); it shares this
 * bundle's MCP client. A `require` of an ES module, which esbuild initialises lazily.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
export const appBridge = (): typeof AppBridgeModule => require('@modelcontextprotocol/ext-apps/app-bridge') as typeof AppBridgeModule;

/** The tasks extension; ESM-only, so `import()` (this bundle inlines it; plain Node loads it natively). */
export const tasksExtension = () => import('@modelcontextprotocol/ext-tasks/client');
