/**
 * A stand-in for the extension host in the kill test (test/resilience/kill.test.ts): the session
 * core as the extension runs it — manager, journal, the permission gate with its audit log — with
 * the offline demo agent. It answers the turn's first permission request, waits while the second
 * one waits, and prints `READY <entries>` once the journal has had time to flush; then the test
 * kills it with SIGKILL.
 * Usage: node --import tsx test/fakes/host-process.ts <journal dir> <audit file> <workspace>
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionJournal } from '../../src/acp/session/journal';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { AuditLog } from '../../src/policy/audit';
import { EffectPolicy } from '../../src/policy/effectPolicy';
import { MemoryFiles } from './memoryFiles';

const [journalDir, auditFile, workspace] = process.argv.slice(2);
const root = path.resolve(__dirname, '..', '..');
const files = new MemoryFiles();
const policy = new EffectPolicy({ defaults: () => ({ write: 'ask', command: 'ask', dryRun: false }), roots: () => [workspace], readCurrent: async (p) => files.docs.get(p)?.text ?? null, audit: new AuditLog(auditFile) });
const manager = new SessionManager({
  agents: () => [{ id: 'demo', name: 'Demo', command: process.execPath, resolvedCommand: process.execPath, args: ['--import', pathToFileURL(require.resolve('tsx')).href, path.join(root, 'src', 'demo', 'demoAgent.ts')], env: { SWITCHBOARD_DEMO_SCENARIO: 'demo' }, source: 'settings', available: true }],
  baseEnv: () => process.env,
  initializeTimeoutMs: () => 20_000,
  clientInfo: { name: 'host-process', version: '0' },
  filesFor: () => files,
  policy,
  terminalsFor: (_k, cwd) => new SessionTerminals(cwd, () => process.env),
  journal: new SessionJournal(journalDir),
});

async function main(): Promise<void> {
  const c = await manager.start('demo', workspace);
  let answered = 0;
  c.onDidChange(() => {
    for (const p of Object.values(c.state.permissions)) {
      if (p.state !== 'waiting') continue;
      if (answered === 0) {
        answered++;
        c.answerPermission(p.permissionId, p.options.find((o) => o.kind === 'allow_once')!.optionId, 'person');
      } else if (answered === 1) {
        answered++;
        // The turn now waits for the person: the journal flushes, then the host is killed.
        setTimeout(() => process.stdout.write(`READY ${c.state.entries.length} ${c.state.sessionId}\n`), 600);
      }
    }
  });
  void c.prompt('Show me the demo, then get killed in the middle of it.');
}

void main();
