/**
 * The MCP SDKs, loaded on first use rather than when the extension loads. Evaluating them costs
 * (PF6, bench/inEditor.ts) ~55 ms for the MCP Apps bridge, ~30 ms for `@hono/node-server` under
 * `@modelcontextprotocol/node`, ~15 ms for the server's ajv provider; none is needed before an MCP
 * server connects, an agent receives the editor's server, or an app opens. `src/vendor/mcp.ts` lists what
 * we use; esbuild builds it as `dist/vendor/mcp.js`, which the extension bundle requires here (esbuild.mjs maps `../vendor/*` to them); under plain Node (unit
 * tests) the require loads the TypeScript file.
 *
 * Modules that only need types keep `import type`: a static value import of an SDK on the
 * activation path would bring it back into the extension bundle.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- lazy on purpose (see above) */
import type * as Mcp from '../vendor/mcp';
import { lazy } from '../common/lazy';

/** Client, server, validator and Node adapter exports of the MCP SDK (see `src/vendor/mcp.ts`). */
export const mcpSdk = lazy(() => require('../vendor/mcp') as typeof Mcp);
/** The MCP Apps host side (`@modelcontextprotocol/ext-apps/app-bridge`), evaluated on the first call. */
export const mcpApps = lazy(() => mcpSdk().appBridge());
