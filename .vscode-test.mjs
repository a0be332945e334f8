// @vscode/test-cli config (`npx vscode-test`). No Electron VS Code can be downloaded on our machines,
// so `useInstallation.fromPath` points at scripts/code-shim.mjs, which runs the suite in code-server's
// real Node extension host (scripts/run-vscode-tests.mjs). Build first: `npm run build:tests`.
// Needs code-server + Node 24: `eval "$(bash scripts/setup-tools.sh)"` (or the default tools cache).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'in-editor',
  files: 'out/test/integration/**/*.test.js',
  useInstallation: { fromPath: new URL('./scripts/code-shim.mjs', import.meta.url).pathname },
  mocha: { ui: 'bdd', timeout: 120000, color: false },
});
