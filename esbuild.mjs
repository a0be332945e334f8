// Builds the extension (Node, CJS, `vscode` external) and one browser bundle per webview.
// `--tests` also bundles the in-editor test suites into out/test (mocha stays external).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const production = process.argv.includes('--production');
const node = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'mocha'],
  sourcemap: !production, minify: production, logLevel: 'warning',
  // The ACP SDK is ESM-only; esbuild inlines it into the CJS bundle.
  mainFields: ['module', 'main'],
};
// Libraries the extension needs only after activation are bundles of their own (src/vendor/*.ts →
// dist/vendor/*.js), required on first use (src/acp/sdk.ts, src/mcp/sdk.ts, src/a2a/sdk.ts,
// src/edits/encoding.ts):
// loading the extension then parses and evaluates far less (PF6 in bench/inEditor.ts).
const vendor = fs.readdirSync('src/vendor').filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
const vendorPackages = ['@agentclientprotocol/sdk', '@modelcontextprotocol/', 'iconv-lite', '@hono/', '@a2a-js/', 'jose', '@anthropic-ai/sandbox-runtime'];
const vendorExternal = {
  name: 'vendor-external',
  setup(build) {
    build.onResolve({ filter: /\/vendor\/\w+$/ }, (args) =>
      args.importer.includes(`${path.sep}src${path.sep}`) && vendor.includes(path.basename(args.path)) ? { path: `./vendor/${path.basename(args.path)}.js`, external: true } : undefined);
  },
};
// `import * as vscode from 'vscode'` of an external module makes esbuild copy the whole API object
// into a namespace of its own in every importing file (~30 files × ~350 properties at load); one
// shared namespace, re-exported once, is built instead. Node's built-ins likewise.
const sharedNamespaces = {
  name: 'shared-namespaces',
  setup(build) {
    build.onResolve({ filter: /^(vscode|node:[a-z_/]+)$/ }, (args) =>
      args.namespace === 'shared-namespace' ? { path: args.path, external: true } : { path: args.path, namespace: 'shared-namespace' });
    build.onLoad({ filter: /.*/, namespace: 'shared-namespace' }, (args) => ({ contents: `export * from ${JSON.stringify(args.path)}; export { default } from ${JSON.stringify(args.path)};`, loader: 'js' }));
  },
};
// zod 4 re-exports every message locale (`z.locales`: ~200 kB minified) from its namespace, which a
// namespace import keeps whole; the extension uses none of them (English is installed by zod's own
// entry, not through this index), so the index is an empty module here (issue 22: what activation parses).
const noZodLocales = {
  name: 'no-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: 'zod-locales', namespace: 'no-zod-locales' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'no-zod-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
// Activation loads dist/extension.js only: stand-ins for the contributed commands and views
// (src/activation/vscodeDeferredStart.ts). The extension itself is dist/app.js, required when one of them is
// first used (issue 22, PF6); `./app` in src/extension.ts is that bundle, not a copy of it.
const appExternal = {
  name: 'app-external',
  setup(build) {
    build.onResolve({ filter: /^\.\/app$/ }, (args) => (args.importer.endsWith(`${path.sep}src${path.sep}extension.ts`) ? { path: './app.js', external: true } : undefined));
  },
};
const entry = await esbuild.build({ ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', plugins: [appExternal, sharedNamespaces], metafile: true });
const app = await esbuild.build({ ...node, entryPoints: ['src/app.ts'], outfile: 'dist/app.js', plugins: [vendorExternal, sharedNamespaces, noZodLocales], metafile: true });
// A static value import of a vendored library would quietly put it back into the extension bundle;
// anything beyond the deferred start in the activation bundle is loaded at every window's start.
const leaked = Object.keys(app.metafile.inputs).filter((i) => vendorPackages.some((p) => i.includes(`node_modules/${p}`)));
if (leaked.length) {
  console.error(`esbuild: dist/app.js must not contain the lazily loaded libraries; a value import brought in:\n  ${leaked.slice(0, 10).join('\n  ')}\nUse the loaders in src/acp/sdk.ts, src/mcp/sdk.ts, src/a2a/sdk.ts or src/edits/encoding.ts (and \`import type\`).`);
  process.exit(1);
}
const activationInputs = Object.keys(entry.metafile.inputs).filter((i) => !i.startsWith('shared-namespace:'));
const unexpected = activationInputs.filter((i) => !/^src\/(extension|activation\/\w+|common\/untrustedText)\.ts$/.test(i));
if (unexpected.length) {
  console.error(`esbuild: dist/extension.js (loaded at activation) must hold only src/extension.ts, src/activation/ and src/common/untrustedText.ts; it imports:\n  ${unexpected.slice(0, 10).join('\n  ')}\nImport what the app needs in src/app.ts (dist/app.js), or \`import type\`.`);
  process.exit(1);
}
await esbuild.build({
  ...node, entryPoints: vendor.map((v) => `src/vendor/${v}.ts`), outdir: 'dist/vendor',
  // sandbox-runtime is ESM and finds its seccomp helper from import.meta.url (dist/vendor/sandbox.js →
  // dist/vendor/seccomp/<arch>/apply-seccomp, copied below); in a CJS bundle that is the file's own URL.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: 'var __importMetaUrl = require("url").pathToFileURL(__filename).href;' },
});
for (const arch of ['x64', 'arm64']) {
  const from = `node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}/apply-seccomp`;
  if (!fs.existsSync(from)) continue;
  fs.mkdirSync(`dist/vendor/seccomp/${arch}`, { recursive: true });
  fs.copyFileSync(from, `dist/vendor/seccomp/${arch}/apply-seccomp`);
  fs.chmodSync(`dist/vendor/seccomp/${arch}/apply-seccomp`, 0o755);
}
// The offline demo agent runs as its own process (`node dist/demo-agent.js`), like any ACP agent.
await esbuild.build({ ...node, external: [], entryPoints: ['src/demo/demoAgent.ts'], outfile: 'dist/demo-agent.js' });
// The stdio bridge to the editor's MCP server, started by agents that take only stdio MCP servers.
await esbuild.build({ ...node, external: [], entryPoints: ['src/mcp/bridge.ts'], outfile: 'dist/mcp-bridge.js' });
// The launcher of forwarded stdio MCP servers: applies the approved folder and variable removals.
await esbuild.build({ ...node, external: [], entryPoints: ['src/mcp/launch.ts'], outfile: 'dist/mcp-launch.js' });

const webviews = fs.readdirSync('webview', { withFileTypes: true }).filter((d) => d.isDirectory() && fs.existsSync(`webview/${d.name}/main.ts`)).map((d) => d.name);
// webview/shared holds what several pages build with (the schema form); it is no page of its own.
for (const name of webviews) {
  await esbuild.build({
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    logLevel: 'warning', entryPoints: [`webview/${name}/main.ts`], outfile: `dist/webview/${name}.js`,
    loader: { '.css': 'text' },
  });
}
// Codicons font + css for the webviews, served from the extension folder.
fs.mkdirSync('dist/webview', { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) {
  fs.copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/webview/${f}`);
}

if (process.argv.includes('--tests')) {
  // test/integration/*.ts is the main window's suite; test/integration/readme/*.ts is the README
  // window's (its own index.ts, so each window runs only the *.test.js files next to its index).
  const entries = ['test/integration', 'test/integration/readme']
    .flatMap((dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => `${dir}/${f}`));
  // The real agent under test is resolved at run time from the repo's node_modules, not bundled.
  await esbuild.build({ ...node, external: [...node.external, '@zed-industries/claude-code-acp', '@zed-industries/claude-agent-acp', '@zed-industries/codex-acp-linux-x64'], entryPoints: entries, outdir: 'out/test/integration' });
}
