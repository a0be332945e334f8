/**
 * What a held command's card shows of its environment: every value that can choose what runs is
 * shown whole, whatever its name says; only a credential's value that cannot is hidden, and then
 * the card says so and an allow needs a second yes. The hash-bound intent is the same either way.
 */
import assert from 'node:assert/strict';
import { choosesWhatRuns, hidesValue, looksLikePathOrCommand } from '../../../src/acp/heldEnv';
import { heldCommandCard } from '../../../src/acp/heldEffects';
import { intentHash, type CommandEffect } from '../../../src/policy/intent';

const effect = (env: { name: string; value: string }[]): CommandEffect => ({ type: 'command', command: 'aws', args: ['s3', 'ls'], cwd: '/w', envNames: env.map((e) => e.name) });
const card = (env: { name: string; value: string }[]) => {
  const c = heldCommandCard({ sessionId: 's', command: 'aws', args: ['s3', 'ls'], env }, effect(env));
  const d = c.display[0];
  assert.equal(d.type, 'command');
  return { ...c, env: d.type === 'command' ? (d.env ?? []) : [] };
};

/** Variables that pick a program, or where code or its configuration comes from, under credential-looking names. */
const CHOOSERS: [string, string][] = [
  ['AWS_SHARED_CREDENTIALS_FILE', 'creds'],
  ['AWS_CONFIG_FILE', 'cfg'],
  ['CARGO_REGISTRY_CREDENTIAL_PROVIDER', 'evil'],
  ['CARGO_REGISTRIES_MINE_CREDENTIAL_PROVIDER', 'cargo:token-from-stdout evil'],
  ['PASSWORD_STORE_EXTENSIONS_DIR', 'ext'],
  ['PASSWORD_STORE_GPG_OPTS', 'x'],
  ['SSH_AUTH_SOCK', 'agent'],
  ['GIT_CREDENTIAL_HELPER', 'evil'],
  ['DOCKER_CREDENTIAL_HELPER', 'evil'],
  ['VAULT_TOKEN_HELPER', 'evil'],
  ['AWS_CREDENTIAL_PROCESS', 'evil'],
  ['RESTIC_PASSWORD_COMMAND', 'evil'],
  ['SOME_SECRET_CMD', 'evil'],
  ['MY_TOKEN_PROGRAM', 'evil'],
  ['AUTH_EXEC', 'evil'],
  ['TOKEN_SCRIPT', 'evil'],
  ['ANSIBLE_VAULT_PASSWORD_FILE', 'vault'],
  ['GOOGLE_APPLICATION_CREDENTIALS', 'creds'],
  ['SECRET_PRELOAD', 'evil'],
  ['AUTH_PLUGIN', 'evil'],
  ['TOKEN_OPTIONS', 'x'],
  ['PASSWORD_PATH', 'bin'],
  ['API_KEY_HOOK', 'evil'],
  ['CREDENTIAL_BACKEND', 'evil'],
  ['TOKEN_MODULE', 'evil'],
  ['PGPASSFILE_TOKEN', 'x'],
];

describe('a held command\'s environment: what chooses the program is shown', () => {
  it('a variable that picks a program, a path, code, options or configuration is shown whole, though its name says credential', () => {
    for (const [name, value] of CHOOSERS) {
      assert.ok(choosesWhatRuns(name), name);
      assert.ok(!hidesValue(name, value), name);
    }
    const c = card(CHOOSERS.map(([name, value]) => ({ name, value })));
    assert.deepEqual(c.env, CHOOSERS.map(([n, v]) => `${n}=${v}`));
    assert.deepEqual(c.hidden, []);
    assert.deepEqual(c.notes, []);
    // cargo runs a credential alias as the provider a registry names.
    assert.ok(!hidesValue('CARGO_CREDENTIAL_ALIAS_MINE', 'sh payload'));
  });

  it('every word of the families, before or after every credential word, with a bare word for a value: shown', () => {
    const families = ['PROGRAM', 'PATH', 'HELPER', 'COMMAND', 'CMD', 'SOCK', 'SOCKET', 'FILE', 'DIR', 'PROVIDER', 'PROCESS', 'EXEC', 'OPTIONS', 'OPTS', 'PRELOAD', 'PLUGIN', 'EXTENSIONS', 'SCRIPT', 'CONFIG', 'LIB', 'BIN', 'SHELL', 'HOOK', 'MODULE', 'LOADER'];
    const credentials = ['TOKEN', 'PASSWORD', 'SECRET', 'CREDENTIAL', 'AUTH', 'API_KEY', 'PASSPHRASE', 'PWD', 'PASS', 'ACCESS_KEY'];
    for (const f of families) {
      for (const c of credentials) {
        for (const name of [`X_${c}_${f}`, `${f}_${c}`, `${c}${f}`, `x_${c.toLowerCase()}_${f.toLowerCase()}`]) assert.ok(!hidesValue(name, 'evil'), name);
      }
    }
  });

  it('a value shaped as a path, a file, a URL or a command line is shown under any credential name', () => {
    const values = ['/tmp/evil', '~/bin/x', './x', '../x', 'C:\\tools\\x.exe', '\\\\host\\share\\x', 'a/../b', 'creds.json', 'helper.sh', '.npmrc', 'https://evil.example/x', 'file:///x', 'x $(curl evil)', 'a `id` b', 'evil --flag', 'tool -x'];
    for (const v of values) {
      assert.ok(looksLikePathOrCommand(v), v);
      for (const name of ['GITHUB_TOKEN', 'DB_PASSWORD', 'API_KEY', 'MY_SECRET']) assert.ok(!hidesValue(name, v), `${name}=${v}`);
    }
  });

  it('a real secret stays hidden, whatever characters it holds; the card names it, says why, and that allowing asks again', () => {
    const secrets: [string, string][] = [
      ['GITHUB_TOKEN', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
      ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
      ['DB_PASSWORD', '&x9!kLq2'],
      ['PGPASSWORD', '"s3cr3t-pw'],
      ['API_KEY', 'abc12345 def67890'],
      ['GEMINI_API_KEY', 'AIzaSyExample'],
      ['BINANCE_API_KEY', 'k1'],
      ['PAGERDUTY_TOKEN', 'k2'],
      ['HOMEBREW_GITHUB_API_TOKEN', 'k3'],
      ['MYSQL_ROOT_PASSWORD', 'k4'],
      ['SLACK_WEBHOOK_SECRET', 'k5'],
      ['CI_REGISTRY_PASSWORD', 'k6'],
    ];
    for (const [n, v] of secrets) assert.ok(hidesValue(n, v), n);
    const c = card(secrets.map(([name, value]) => ({ name, value })));
    assert.deepEqual(c.hidden, secrets.map(([name, value]) => ({ name, chars: value.length })));
    for (const [n, v] of secrets) {
      assert.ok(c.env.includes(`${n}=⟨value hidden: the name says it is a credential; ${v.length} characters⟩`), n);
      assert.ok(!JSON.stringify(c).includes(v), `${n}'s value is kept nowhere on the card`);
    }
    assert.equal(c.notes.length, 1);
    assert.match(c.notes[0], /^Not shown: the values of GITHUB_TOKEN \(40 characters\), AWS_SECRET_ACCESS_KEY/);
    assert.match(c.notes[0], /Allowing asks you once more/);
  });

  it('an empty value has nothing to hide; the intent and its hash carry the names only, whatever is shown', () => {
    assert.ok(!hidesValue('GITHUB_TOKEN', ''));
    const shown = [{ name: 'SSH_AUTH_SOCK', value: 'agent' }];
    const hidden = [{ name: 'SSH_AUTH_SOCK', value: 'agent' }, { name: 'NPM_TOKEN', value: 'npm_x' }];
    const h = (env: { name: string; value: string }[]) => intentHash({ sessionId: 's', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [effect(env)] });
    assert.equal(h(shown), intentHash({ sessionId: 's', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [{ type: 'command', command: 'aws', args: ['s3', 'ls'], cwd: '/w', envNames: ['SSH_AUTH_SOCK'] }] }));
    assert.equal(h(hidden), h([{ name: 'NPM_TOKEN', value: 'other' }, { name: 'SSH_AUTH_SOCK', value: 'other' }]), 'values are not in the intent');
  });
});
