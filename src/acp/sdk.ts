/**
 * The ACP SDK, loaded on first use rather than when the extension loads: no agent runs at
 * activation, and evaluating its generated zod schemas costs ~35 ms (PF6, bench/inEditor.ts).
 * `src/vendor/acp.ts` lists what we use; esbuild builds it as `dist/vendor/acp.js`, which the
 * extension bundle requires here (esbuild.mjs maps `../vendor/*` to it); under plain Node (unit
 * tests) the require loads the TypeScript file.
 *
 * Modules that only need the SDK's types keep `import type`: a static value import of the SDK on
 * the activation path would bring it back into the extension bundle.
 */
import type * as Sdk from '../vendor/acp';
import { lazy } from '../common/lazy';

/** The ACP SDK's run-time exports (see `src/vendor/acp.ts`), loaded on the first call. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
export const acpSdk = lazy(() => require('../vendor/acp') as typeof Sdk);
