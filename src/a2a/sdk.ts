/**
 * The A2A SDK, loaded when a remote agent is first used rather than when the extension loads (PF6,
 * bench/inEditor.ts). `src/vendor/a2a.ts` lists what we use; esbuild builds it as
 * `dist/vendor/a2a.js`, which the extension bundle requires here (esbuild.mjs maps `../vendor/*` to
 * it); under plain Node (unit tests) the require loads the TypeScript file. Modules that only need
 * types keep `import type`.
 */
import type * as Sdk from '../vendor/a2a';
import { lazy } from '../common/lazy';

/** The A2A SDK's run-time exports (see `src/vendor/a2a.ts`), loaded on the first call. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
export const a2aSdk = lazy(() => require('../vendor/a2a') as typeof Sdk);
