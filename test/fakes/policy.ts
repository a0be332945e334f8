/** An EffectPolicy for tests: defaults as given (all `ask` unless told), files from `readCurrent`. */
import { AuditLog } from '../../src/policy/audit';
import { EffectPolicy } from '../../src/policy/effectPolicy';
import type { PolicyDefaults } from '../../src/policy/gate';

export function testPolicy(
  opts: { defaults?: Partial<PolicyDefaults> | (() => Partial<PolicyDefaults>); roots?: string[]; readCurrent?: (p: string) => Promise<string | null>; auditFile?: string } = {},
): EffectPolicy {
  const current = typeof opts.defaults === 'function' ? opts.defaults : () => (opts.defaults ?? {}) as Partial<PolicyDefaults>;
  return new EffectPolicy({
    defaults: () => ({ write: 'ask', command: 'ask', dryRun: false, ...current() }),
    roots: () => opts.roots ?? ['/'],
    readCurrent: opts.readCurrent ?? (async () => null),
    audit: opts.auditFile ? new AuditLog(opts.auditFile) : undefined,
  });
}

/** Policy that lets every effect through: for tests about something other than the gate. */
export const allowAll = (opts: Parameters<typeof testPolicy>[0] = {}) => testPolicy({ ...opts, defaults: { write: 'allow', command: 'allow' } });
