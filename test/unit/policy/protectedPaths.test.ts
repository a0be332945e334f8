import assert from 'node:assert/strict';
import { ApprovalStore, decide, isProtected, type PolicyDefaults } from '../../../src/policy/gate';
import { GrantStore } from '../../../src/policy/grants';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import { BROAD_WRITE_NOTE, broadWriteGrantNote, protectedClass } from '../../../src/policy/protectedPaths';
import { sha256, type Intent, type WriteEffect } from '../../../src/policy/intent';

const write = (path: string): WriteEffect => ({ type: 'write', path, contentSha256: [sha256('x')], baseSha256: null });

/** Each class of file a tool runs or reads as configuration, with variants (nested, other case). */
const PROTECTED: Record<string, string[]> = {
  'linter, formatter, test and bundler configs that are code': [
    'eslint.config.js', 'eslint.config.mjs', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.json', '.eslintrc', '.prettierrc', '.prettierrc.cjs', 'prettier.config.mjs',
    '.stylelintrc.json', 'stylelint.config.js', '.babelrc', 'babel.config.js', 'jest.config.ts', 'jest.setup.js', 'vitest.config.mts', 'vitest.workspace.ts', 'vite.config.ts',
    'webpack.config.js', 'rollup.config.mjs', 'postcss.config.cjs', '.postcssrc.json', 'tailwind.config.ts', 'next.config.js', 'svelte.config.js', 'playwright.config.ts',
    'karma.conf.js', '.mocharc.yml', '.mocharc.json', '.nycrc', 'Gruntfile.js', 'gulpfile.ts', 'packages/web/vite.config.ts', 'ESLINT.CONFIG.JS',
  ],
  'package managers': ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'pnpm-workspace.yaml', 'package.json', 'packages/a/package.json', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', '.yarn/plugins/x.cjs', '.pnp.cjs', 'bunfig.toml', 'deno.json', 'composer.json', 'Gemfile', 'node_modules/mocha/bin/mocha.js'],
  python: ['conftest.py', 'tests/conftest.py', 'setup.py', 'setup.cfg', 'pyproject.toml', 'tox.ini', 'noxfile.py', 'sitecustomize.py', 'x.pth', '.venv/lib/python3.12/site-packages/evil.pth', '.pylintrc'],
  'CI workflows': ['.github/workflows/ci.yml', '.github/actions/setup/action.yml', '.gitlab-ci.yml', '.circleci/config.yml', '.travis.yml', 'azure-pipelines.yml', 'Jenkinsfile', 'bitbucket-pipelines.yml', '.buildkite/pipeline.yml'],
  'editors and agents': ['.devcontainer.json', '.devcontainer/devcontainer.json', '.idea/workspace.xml', '.vscode/tasks.json', '.zed/settings.json', '.cursor/mcp.json', '.mcp.json', '.claude/settings.json', '.github/hooks/x.json', '.github/agents/a.md', 'x.code-workspace', '.dir-locals.el', '.nvim.lua'],
  'shell and environment': ['.envrc', '.bashrc', '.zshrc', '.bash_profile', '.profile', '.zshenv', '.env', '.env.local', 'mise.toml', '.tool-versions', 'flake.nix', '.exrc'],
  git: ['.git/config', '.git/hooks/pre-commit', 'vendor/lib/.git/hooks/post-checkout', '.gitattributes', '.gitconfig', '.gitmodules', '.lfsconfig', '.husky/pre-commit', '.pre-commit-config.yaml', 'lefthook.yml'],
  'build scripts': ['Makefile', 'makefile', 'GNUmakefile', 'rules.mk', 'Justfile', 'justfile', 'Taskfile.yml', 'CMakeLists.txt', 'BUILD.bazel', 'WORKSPACE', 'defs.bzl', 'build.gradle', 'build.gradle.kts', 'gradle.properties', 'gradle/wrapper/gradle-wrapper.properties', 'pom.xml', 'app.csproj', 'Directory.Build.props', 'Cargo.toml', 'build.rs', '.cargo/config.toml', 'Rakefile'],
  'programs Windows runs from the current folder': ['git.bat', 'npm.cmd', 'node.exe'],
};

/** Near misses: ordinary source and docs that look like the names above. */
const ORDINARY = [
  'src/config.ts', 'src/configure.ts', 'src/eslint.ts', 'src/eslint/rules.ts', 'docs/package.json.md', 'mypackage.json', 'src/package.ts', 'src/conftest_helper.py', 'src/setup.ts',
  'tests/test_setup.py', 'README.md', '.github/README.md', '.github/ISSUE_TEMPLATE/bug.md', 'workflows/ci.yml', 'src/makefile.ts', 'src/build.ts', 'docs/makefile.md', 'src/git.ts',
  'src/env.ts', 'src/environment.ts', 'src/profile.ts', 'src/vite.ts', 'lib/lock.ts', 'src/rc.ts', 'src/.hidden.ts', 'src/batch.ts', 'src/jest.ts', 'test/unit/a.test.ts', 'docs/gitattributes.md',
];

describe('protected paths cover files that tools execute (issue 16, finding 14)', () => {
  for (const [name, paths] of Object.entries(PROTECTED)) {
    it(`protects ${name}`, () => {
      for (const p of paths) assert.ok(isProtected(p), p);
    });
  }

  it('leaves ordinary source files and near misses unprotected', () => {
    for (const p of ORDINARY) assert.equal(protectedClass(p), undefined, `${p} matched ${protectedClass(p)?.pattern}`);
  });

  it('a grant or an allow rule never writes them; an exact approval does', () => {
    const grants = new GrantStore();
    grants.add({ scope: 'always', pattern: { kind: 'write', pathGlob: '**' }, source: 'agent_allow_always', description: 'any file' }, 0);
    const ask: PolicyDefaults = { write: 'allow', command: 'ask', dryRun: false, allow: [{ kind: 'write' }] };
    const who = { sessionId: 's1', agentId: 'a' };
    const approvals = new ApprovalStore();
    for (const p of ['eslint.config.js', '.npmrc', 'conftest.py', 'package.json', '.github/workflows/ci.yml', 'Makefile', '.envrc']) {
      const d = decide(approvals, grants, ask, who, write(p), 0);
      assert.equal(!d.allowed && d.reason, 'protected_target', p);
      assert.match(!d.allowed ? d.message : '', /protected path \(.+\)/);
    }
    assert.equal(decide(approvals, grants, ask, who, write('src/a.ts'), 0).allowed, true);
  });

  it('the card and the Grants view say that a broad write grant amounts to running commands', () => {
    assert.equal(broadWriteGrantNote({ kind: 'write', pathGlob: '**' }), BROAD_WRITE_NOTE);
    assert.equal(broadWriteGrantNote({ kind: 'write' }), BROAD_WRITE_NOTE);
    assert.equal(broadWriteGrantNote({ kind: 'write', pathGlob: 'src/**' }), BROAD_WRITE_NOTE);
    assert.equal(broadWriteGrantNote({ kind: 'write', pathGlob: 'src/a.ts' }), undefined, 'one exact path');
    assert.equal(broadWriteGrantNote({ kind: 'write', pathGlob: 'src/\\[x\\].ts' }), undefined, 'an escaped exact path');
    assert.equal(broadWriteGrantNote({ kind: 'command' }), undefined);
    const policy = new EffectPolicy({ defaults: () => ({ write: 'ask', command: 'ask', dryRun: false }), roots: () => ['/w'], readCurrent: async () => null });
    const edit: Intent = { sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'edit', effects: [write('src/a.ts')] };
    const notes = policy.grantNotes(edit, [{ kind: 'allow_once' }, { kind: 'allow_always' }]);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /amounts to running commands/);
    assert.deepEqual(policy.grantNotes(edit, [{ kind: 'allow_once' }, { kind: 'reject_once' }]), [], 'no broad grant offered');
    const run: Intent = { ...edit, kind: 'execute', effects: [{ type: 'command', command: 'ls', args: [], cwd: '/w', envNames: [] }] };
    assert.deepEqual(policy.grantNotes(run, [{ kind: 'allow_always' }]), [], 'a command grant is exact');
  });
  it('files that make any folder a git repository, and the review\'s further tool files, are protected; near names are not', () => {
    // A folder with HEAD, objects/ and refs/ is discovered by git as a repository, and a plain
    // `git status` there runs its config's core.fsmonitor: writing them amounts to running a command.
    const yes = ['sub/HEAD', 'x/packed-refs', 'sub/commondir', 'sub/objects/pack/a.pack', 'sub/refs/heads/main', '.vscode-test.mjs', 'venv/bin/python', '.tox/py/x', '.storybook/main.js', '.eleventy.js', '.gitpod.yml', '.gitea/workflows/a.yml', '.forgejo/workflows/b.yml', 'default.nix', 'devbox.json', 'go.mod', 'Podfile', 'Vagrantfile', 'Dangerfile', 'Brewfile', 'Guardfile', 'mix.exs', 'Makefile.PL', 'project/plugins.sbt', '.sbtopts', '.jvmopts', '.Rprofile', 'tasks.py', 'fabfile.py', '.ycm_extra_conf.py', 'package.yaml', 'package.json5'];
    for (const p of yes) assert.ok(protectedClass(p), `${p} is protected`);
    for (const p of ['src/head.ts', 'docs/refs/readme.md', 'src/objects/thing.ts', 'src/config/index.ts', 'src/tasks.ts', 'src/go.ts', 'src/venv.ts']) assert.equal(protectedClass(p), undefined, `${p} is not`);
  });
});
