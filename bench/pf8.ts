/**
 * PF8 of `npm run bench`: runs test/integration/99-pf8.test.ts inside the real VS Code
 * (code-server, headless Chromium; scripts/run-vscode-tests.mjs) and returns its figures. Needs the
 * tools scripts/setup-tools.sh installs; without them it says so instead of a number.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Runs PF8 and returns `{ chunks2000, chunks20000 }` (each: ratio, toScreenMs, agentSendMs) or why not. */
export function pf8(): Record<string, unknown> {
  const root = path.resolve(__dirname, '..');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pf8-'));
  const result = path.join(tmp, 'pf8.json');
  try {
    let toolsEnv: string;
    try {
      toolsEnv = execFileSync('bash', [path.join(root, 'scripts', 'setup-tools.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return { skipped: 'the in-editor tools are not installed (bash scripts/setup-tools.sh)' };
    }
    const env: NodeJS.ProcessEnv = { ...process.env, SWITCHBOARD_TEST_GREP: 'PF8', SWITCHBOARD_PF8_RESULT: result };
    for (const m of toolsEnv.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
    execFileSync(process.execPath, [path.join(root, 'esbuild.mjs')], { cwd: root, stdio: 'ignore' });
    execFileSync(process.execPath, [path.join(root, 'esbuild.mjs'), '--tests'], { cwd: root, stdio: 'ignore' });
    const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'run-vscode-tests.mjs'), '--extensionDevelopmentPath', root, '--extensionTestsPath', path.join(root, 'out', 'test', 'integration', 'index'), '--screenshot-dir', path.join(tmp, 'shots'), '--timeout', '900'], { cwd: root, env, encoding: 'utf8' });
    if (!fs.existsSync(result)) return { failed: `the in-editor run wrote no figures (exit ${run.status}): ${(run.stdout + run.stderr).split('\n').slice(-8).join(' | ')}` };
    return { ...(JSON.parse(fs.readFileSync(result, 'utf8')) as Record<string, unknown>), goal: '<= 3 for both (time to screen ÷ the agent\'s own time to send)' };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
