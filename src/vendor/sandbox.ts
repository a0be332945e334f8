/**
 * The part of `@anthropic-ai/sandbox-runtime` the extension uses (issue 21), built as a bundle of its
 * own (`dist/vendor/sandbox.js`, with its seccomp helper copied beside it) and required when the first
 * sandboxed command or server starts, through `src/sandbox/runtime.ts`. Add an export here before
 * using it.
 */
export { SandboxManager } from '@anthropic-ai/sandbox-runtime';
