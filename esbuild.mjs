// Builds the extension (Node, CJS, `vscode` external) and one browser bundle per webview.
// `--tests` also bundles the in-editor test suites into out/test (mocha stays external).
import * as esbuild from 'esbuild';
import fs from 'node:fs';

const production = process.argv.includes('--production');
const node = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'mocha'],
  sourcemap: !production, minify: production, logLevel: 'warning',
  // The ACP SDK is ESM-only; esbuild inlines it into the CJS bundle.
  mainFields: ['module', 'main'],
};
await esbuild.build({ ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' });
// The offline demo agent runs as its own process (`node dist/demo-agent.js`), like any ACP agent.
await esbuild.build({ ...node, external: [], entryPoints: ['src/demo/demoAgent.ts'], outfile: 'dist/demo-agent.js' });
// The stdio bridge to the editor's MCP server, started by agents that take only stdio MCP servers.
await esbuild.build({ ...node, external: [], entryPoints: ['src/mcp/bridge.ts'], outfile: 'dist/mcp-bridge.js' });

const webviews = fs.readdirSync('webview', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
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
  const entries = fs.readdirSync('test/integration').filter((f) => f.endsWith('.ts')).map((f) => `test/integration/${f}`);
  // The real agent under test is resolved at run time from the repo's node_modules, not bundled.
  await esbuild.build({ ...node, external: [...node.external, '@zed-industries/claude-code-acp', '@zed-industries/claude-agent-acp'], entryPoints: entries, outdir: 'out/test/integration' });
}
