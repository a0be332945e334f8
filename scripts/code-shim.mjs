#!/usr/bin/env node
// A stand-in "VS Code executable" for @vscode/test-cli / @vscode/test-electron
// (`useInstallation: { fromPath }` in .vscode-test.mjs): no Electron VS Code can be downloaded here,
// so the tests run in code-server's real Node extension host through scripts/run-vscode-tests.mjs.
// test-electron spawns it as: <exe> [folder] [launchArgs...] --no-sandbox ... --extensionTestsPath=X
//   --extensionDevelopmentPath=Y --user-data-dir=... --extensions-dir=...
// Electron/profile flags are ignored (the runner uses fresh temp dirs). Env: CODE_SERVER_ENTRY and
// NODE24 (from `eval "$(bash scripts/setup-tools.sh)"`, or the default tools cache);
// SWITCHBOARD_SCREENSHOT_DIR enables screenshots; SWITCHBOARD_TEST_TIMEOUT (s, default 600).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const devPaths = [];
let testsPath, workspace;
for (const a of process.argv.slice(2)) {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  if (m && m[1] === 'extensionTestsPath') testsPath = m[2];
  else if (m && m[1] === 'extensionDevelopmentPath') devPaths.push(m[2]);
  else if (a === '--version' || a === '-v') { console.log('1.139.1\ncode-server-shim\nx64'); process.exit(0); }
  else if (!a.startsWith('-') && !workspace) workspace = a; // first positional = folder to open
  // anything else: Electron / profile flags, ignored
}
if (!testsPath || !devPaths.length) {
  console.error('code-shim: need --extensionTestsPath= and --extensionDevelopmentPath=');
  process.exit(1);
}
if (devPaths.length > 1) console.error(`code-shim: only the first extensionDevelopmentPath is used (${devPaths[0]})`);
const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-vscode-tests.mjs');
const args = [runner, '--extensionDevelopmentPath', devPaths[0], '--extensionTestsPath', testsPath,
  '--timeout', process.env.SWITCHBOARD_TEST_TIMEOUT || '600'];
if (workspace) args.push('--workspace', workspace);
if (process.env.SWITCHBOARD_SCREENSHOT_DIR) args.push('--screenshot-dir', process.env.SWITCHBOARD_SCREENSHOT_DIR);
const child = spawn(process.execPath, args, { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
