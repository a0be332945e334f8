/**
 * A host offered for one click ("Allow … and run again") is one literal host, and the sandbox
 * library reads what we pass it as that host and no other: checked against the library's own
 * grammar and matcher (`domain-pattern.js` of @anthropic-ai/sandbox-runtime), with any string.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { literalHostEntry, refusedHostEntry } from '../../../src/sandbox/hostEntry';
import { blockedHosts, buildProfile, withHost } from '../../../src/sandbox/profile';

/** The library's grammar and matcher (ESM: loaded in `before`). */
interface DomainPattern {
  isValidAllowedDomainEntry(entry: string): boolean;
  matchesDomainPatternWithPort(hostname: string, port: number, pattern: string): boolean;
  splitDomainPatternPort(pattern: string): { hostPattern: string; port?: number };
}
interface ParentProxy {
  canonicalizeHost(h: string): string | undefined;
}
let lib: DomainPattern;
let proxy: ParentProxy;

/** Strings an agent can make a refused connection name: wildcards, user-info, ports, IP forms, case, unicode. */
const hostish = fc.oneof(
  fc.constantFrom(
    '*.amazonaws.com', '*', '*.com', 'amazonaws.com', 'user@evil.example', 'evil.example:1-65535', 'a.example:0', 'a.example:65536', 'a.example:0443',
    '127.1', '0x7f.0.0.1', '2130706433', '127.0.0.1', '0.0.0.0', '[::1]', '::1', '[::ffff:127.0.0.1]', '[fe80::1%25eth0]', 'EXAMPLE.com', 'example.com.',
    'exa\u200bmple.com', 'xn--zz.com', 'xn--nxasmq6b.com', 'localhost', 'localhost.', 'a..b', '.a.b', 'a.b/c', 'a.b?c', 'a.b#c', 'a b.c', 'a.example\n', 'ex%41mple.com',
    '_dmarc.example.com', '-a.example', 'a-.example', 'x'.repeat(64) + '.example', `${'a.'.repeat(130)}example`,
  ),
  fc.stringMatching(/^[a-zA-Z0-9.*:@[\]_%-]{1,40}$/),
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 4 }), fc.constantFrom('', '*.', 'WWW.')).map(([labels, pre]) => pre + labels.join('.')),
);
const portish = fc.oneof(fc.integer({ min: 1, max: 65535 }).map(String), fc.constantFrom('0', '65536', '080', '1-2', '', '443x'));

describe('a host allowed with one click is that one host (sandbox-runtime grammar)', () => {
  before(async () => {
    lib = (await import('@anthropic-ai/sandbox-runtime/dist/sandbox/domain-pattern.js')) as unknown as DomainPattern;
    proxy = (await import('@anthropic-ai/sandbox-runtime/dist/sandbox/parent-proxy.js')) as unknown as ParentProxy;
  });

  it('takes literal names and dotted-quad addresses with a port; refuses every pattern, user-info, range, IP trick and odd spelling', () => {
    for (const ok of ['example.com', 'a.example:443', '127.0.0.1:39719', 'localhost:8080', '_dmarc.example.com', 'xn--nxasmq6b.com:443', '0.0.0.0']) assert.equal(literalHostEntry(ok), ok, ok);
    for (const bad of ['*.amazonaws.com', '*.amazonaws.com:443', '*', '*:443', 'user@evil.example', 'evil.example:1-65535', 'a.example:0', 'a.example:65536', 'a.example:0443', '127.1', '0x7f.0.0.1',
      '2130706433', '1.2.3', '[::1]', '[::1]:443', '::1:443', '[::ffff:127.0.0.1]', 'EXAMPLE.com', 'example.com.', 'exa\u200bmple.com', 'xn--zz.com', 'a..b', 'com', 'a.b/c', 'ex%41mple.com', '-a.example', 'example.123']) {
      assert.equal(literalHostEntry(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(refusedHostEntry('API.Example.com', '443'), 'api.example.com:443', 'a name is case-insensitive: offered lowercased');
    assert.equal(refusedHostEntry('*.amazonaws.com', '443'), undefined);
  });

  it('whatever the string, an accepted entry is valid for the library and matches only its own host (and port)', () => {
    fc.assert(
      fc.property(hostish, fc.option(portish, { nil: undefined }), hostish, fc.integer({ min: 1, max: 65535 }), (host, port, other, otherPort) => {
        const entry = literalHostEntry(port === undefined ? host : `${host}:${port}`);
        if (entry === undefined) return;
        assert.ok(lib.isValidAllowedDomainEntry(entry), `the library refuses ${entry}`);
        const { hostPattern, port: only } = lib.splitDomainPatternPort(entry);
        assert.ok(!hostPattern.includes('*'), entry);
        assert.equal(proxy.canonicalizeHost(hostPattern), hostPattern, `${entry}: the library would read another host`);
        // Any destination the library lets through under this entry is the entry's own host.
        for (const dest of [other, `a.${hostPattern}`, hostPattern.toUpperCase(), `${hostPattern}.evil.example`]) {
          const canonical = proxy.canonicalizeHost(dest) ?? dest;
          if (lib.matchesDomainPatternWithPort(canonical, otherPort, entry)) {
            assert.equal(canonical, hostPattern, `${entry} lets ${dest} through`);
            if (only !== undefined) assert.equal(otherPort, only);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('a refusal is offered only from a whole line of the proxy\'s own form, for a literal host, and withHost takes nothing else', () => {
    const lines = [
      'deny network-outbound *.amazonaws.com:443 (malformed host)',
      'deny network-outbound *.amazonaws.com:443 (host is not on the allow list)',
      'deny file-write /w/x deny network-outbound evil.example:443 (host is not on the allow list)',
      'deny network-outbound ::1:443 (host is not on the allow list)',
      'deny network-outbound user@evil.example:443 (host is not on the allow list)',
      'deny network-outbound Good.Example:443 (host is not on the allow list)',
      'deny network-outbound good.example:80 (resolves to a denied address)',
    ].join('\n');
    assert.deepEqual(blockedHosts(lines), ['good.example:443']);
    const profile = buildProfile({ roots: ['/w'], tmpDir: '/tmp', home: '/h', editorStorage: [], allowedHosts: ['*.npmjs.org'] });
    assert.throws(() => withHost(profile, '*.amazonaws.com:443'), /not one literal host/);
    assert.throws(() => withHost(profile, 'user@evil.example'), /not one literal host/);
    assert.deepEqual(withHost(profile, 'good.example:443').allowedHosts, ['*.npmjs.org', 'good.example:443'], 'the person\'s own settings stay as they wrote them');
  });

  it('any violation text offers only entries that are literal hosts the library reads as themselves', () => {
    const line = fc.oneof(
      fc.tuple(hostish, portish, fc.constantFrom('host is not on the allow list', 'malformed host', 'x')).map(([h, p, why]) => `deny network-outbound ${h}:${p} (${why})`),
      fc.string({ maxLength: 60 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (ls) => {
        for (const entry of blockedHosts(ls.join('\n'))) {
          assert.equal(literalHostEntry(entry), entry);
          assert.ok(lib.isValidAllowedDomainEntry(entry) && !entry.includes('*'), entry);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
