/**
 * Protected paths: workspace files whose writes always need an approval of that exact write (grants
 * and allow rules do not count), because writing them amounts to running a command or loosening a
 * guard. A tool runs them later without asking anyone: git runs hooks and filters, editors and
 * agents read their settings, package managers run scripts and read registries and hooks, test
 * runners, linters, formatters and bundlers `require` their JavaScript configs, shells source rc
 * files, CI runs workflows.
 *
 * The list starts from two maintained ones and extends them by class:
 * - VS Code's own default of `chat.tools.edits.autoApprove` (microsoft/vscode,
 *   `DEFAULT_EDIT_AUTO_APPROVE_PATTERNS` and `ALWAYS_CHECKED_EDIT_PATTERNS`: `.vscode/*.json`,
 *   `.git/**`, `package.json`, `.env`, `.gitattributes`, `.npmrc`, `.yarnrc(.yml)`, `.pnpmfile.*`,
 *   `pnpm-workspace.yaml`, `Cargo.toml`, `build.rs`, `*.code-workspace`, MSBuild projects, Gradle
 *   files, lock files, `.github/agents|hooks`, `.claude/agents`, `.claude/settings*.json`);
 * - Anthropic's sandbox-runtime (`DANGEROUS_FILES` / `DANGEROUS_DIRECTORIES` in
 *   anthropics/sandbox-runtime `src/sandbox/sandbox-utils.ts`, used by Claude Code: `.gitconfig`,
 *   `.gitmodules`, shell rc files, `.ripgreprc`, `.mcp.json`, `.git`, `.vscode`, `.idea`,
 *   `.claude/commands`, `.claude/agents`).
 * Paths are workspace-relative with `/`, matched anywhere in the tree (a nested project counts) and
 * without case, since macOS and Windows file systems ignore it. Pure; no `vscode`.
 */

/** One class of protected paths, with the reason a person is shown. */
export interface ProtectedClass {
  /** Matches a workspace-relative path (`/`-separated), case-insensitively. */
  pattern: RegExp;
  /** Why writing it amounts to running something, in a few words. */
  why: string;
}

/** `(^|/)` + a name + end of path or a folder below it. */
const dir = (names: string): RegExp => new RegExp(`(^|/)(${names})(/|$)`, 'i');
/** `(^|/)` + a file name, at the end of the path. */
const file = (names: string): RegExp => new RegExp(`(^|/)(${names})$`, 'i');
/** Extensions of JavaScript and TypeScript modules a tool loads. */
const JS = '[cm]?[jt]sx?';

/** Every protected class; the one place to extend. */
export const PROTECTED_CLASSES: readonly ProtectedClass[] = [
  // Version control: hooks, config, filters and submodules run or fetch code.
  { pattern: dir('\\.git|\\.hg|\\.svn|\\.jj|\\.sl|\\.husky|\\.githooks'), why: 'version control internals and hooks' },
  { pattern: dir('\\.config/(git|jj)'), why: 'git configuration, filters and hooks' },
  { pattern: file('\\.gitmodules|\\.gitattributes|\\.gitconfig|\\.lfsconfig|\\.pre-commit-config\\.ya?ml|\\.?lefthook(-local)?\\.(ya?ml|json|toml)'), why: 'git configuration, filters and hooks' },
  // A folder that holds these is a git directory wherever it is: git discovers it as a repository
  // (a "bare" one) and runs what its `config` names (`core.fsmonitor`, hooks) on a plain `git status`.
  { pattern: file('head|fetch_head|orig_head|packed-refs|commondir|gitdir') , why: 'files that make a folder a git repository' },
  { pattern: new RegExp('(^|/)(objects/(info|pack)|refs/(heads|tags|remotes))(/|$)', 'i'), why: 'files that make a folder a git repository' },
  // Editors and agents: settings, tasks, launch configurations, MCP servers, agent hooks and commands.
  { pattern: dir('\\.vscode|\\.idea|\\.settings|\\.fleet|\\.zed|\\.devcontainer|\\.claude|\\.codex|\\.gemini|\\.opencode|\\.cursor|\\.windsurf|\\.continue|\\.github/(agents|hooks)'), why: 'editor and agent configuration' },
  { pattern: file('\\.factorypath|\\.classpath|\\.vscode-test\\.[cm]?[jt]s|\\.gitpod\\.ya?ml|\\.gitpod\\.dockerfile|devbox\\.json|\\.devcontainer\\.json|\\.mcp\\.json|\\.claude\\.json|opencode\\.jsonc?|[^/]*\\.code-workspace|\\.dir-locals(-2)?\\.el|\\.nvim\\.lua'), why: 'editor and agent configuration' },
  // CI: workflows run with the repository's secrets.
  { pattern: dir('\\.(gitea|forgejo)/(workflows|actions)|\\.github/(workflows|actions)|\\.circleci|\\.buildkite|\\.azure-pipelines|\\.woodpecker|\\.gitlab'), why: 'CI workflows' },
  { pattern: file('\\.gitlab-ci\\.ya?ml|\\.travis\\.ya?ml|azure-pipelines\\.ya?ml|bitbucket-pipelines\\.ya?ml|\\.?appveyor\\.ya?ml|\\.drone\\.ya?ml|\\.woodpecker\\.ya?ml|jenkinsfile|cloudbuild\\.ya?ml'), why: 'CI workflows' },
  // Shells and environments: sourced on start or on entering the folder (direnv, mise, nix).
  { pattern: file('\\.(bash_profile|bash_login|bash_logout|profile|zshenv|zprofile|zlogin|zlogout)|\\.env(\\.[^/]*)?|\\.?mise(\\.[^/]*)?\\.toml|\\.tool-versions|flake\\.nix|shell\\.nix|default\\.nix|devenv\\.nix|\\.rprofile|\\.ycm_extra_conf\\.py'), why: 'shell and environment startup files' },
  // Every dotfile "rc" (`.bashrc`, `.zshrc`, `.npmrc`, `.yarnrc.yml`, `.eslintrc.js`, `.prettierrc`,
  // `.babelrc`, `.mocharc.yml`, `.nycrc`, `.envrc`, `.pylintrc`, `.bazelrc`, `.exrc`, …): a tool reads
  // it on start, and many load plugins, `require` modules or run commands named in it.
  { pattern: new RegExp(`(^|/)\\.[a-z0-9_.-]*rc(\\.(${JS}|json5?|ya?ml|toml|cjs|mjs))?$`, 'i'), why: 'a tool\'s startup configuration' },
  // Tool configs that are code: `eslint.config.js`, `vite.config.ts`, `jest.config.cjs`, `webpack.config.js`,
  // `tailwind.config.ts`, `playwright.config.ts`, `karma.conf.js`, `Gruntfile.js`, … are `require`d.
  { pattern: new RegExp(`(^|/)[^/]+\\.(config|conf|workspace|setup)\\.(${JS})$`, 'i'), why: 'a tool\'s configuration, which the tool runs as code' },
  { pattern: new RegExp(`(^|/)(gruntfile|gulpfile|jakefile|dangerfile|\\.eleventy)\\.(${JS})$`, 'i'), why: 'a task runner\'s script' },
  { pattern: file('dangerfile'), why: 'a task runner\'s script' },
  // Package managers and builds: scripts, hooks, registries, install-time code.
  {
    pattern: file(
      'package\\.json|[^/]*\\.lock|[^/]*-lock\\.(json|ya?ml)|npm-shrinkwrap\\.json|\\.pnpmfile\\.[cm]?js|pnpm-workspace\\.yaml|bunfig\\.toml|deno\\.jsonc?|\\.pnp\\.[cm]?js|\\.pnp\\.loader\\.mjs|turbo\\.json|nx\\.json|project\\.json|composer\\.json|package\\.ya?ml|package\\.json5|go\\.mod|mix\\.exs|makefile\\.pl|podfile|vagrantfile|brewfile|guardfile|gemfile|rakefile|[^/]*\\.gemspec|cargo\\.toml|build\\.rs|rust-toolchain(\\.toml)?|go\\.work',
    ),
    why: 'package manager and build configuration',
  },
  { pattern: dir('\\.yarn|\\.cargo|\\.mvn|gradle/wrapper|node_modules|\\.?venv|\\.tox|\\.nox|\\.ruby-lsp|\\.storybook|\\.bundle|buildsrc|build-logic'), why: 'tools and dependencies that run' },
  { pattern: file('tasks\\.py|fabfile\\.py|dodo\\.py|setup\\.py|setup\\.cfg|pyproject\\.toml|conftest\\.py|noxfile\\.py|tox\\.ini|pytest\\.ini|sitecustomize\\.py|usercustomize\\.py|[^/]*\\.pth|pipfile'), why: 'Python build, test and startup hooks' },
  // Interpreters the Python extension finds in the workspace whatever their folder is called (it
  // runs them to learn their version), and compiled modules Python loads in place of their source.
  { pattern: new RegExp('(^|/)(bin/python[0-9.]*|scripts/python[0-9.]*(w)?\\.exe|pyvenv\\.cfg|[^/]+\\.py[co])$', 'i'), why: 'a Python interpreter or compiled module that runs' },
  { pattern: dir('__pycache__|\\.direnv|\\.conda|\\.pixi'), why: 'a Python interpreter or compiled module that runs' },
  {
    pattern: file(
      'makefile|gnumakefile|[^/]*\\.mk|\\.?justfile|taskfile(\\.dist)?\\.ya?ml|cmakelists\\.txt|[^/]*\\.cmake|meson\\.build|build(\\.bazel)?|workspace(\\.bazel)?|module\\.bazel|[^/]*\\.bzl|build\\.xml|pom\\.xml|build\\.sbt|project/[^/]+\\.(sbt|scala)|cmake(user)?presets\\.json|rust-analyzer\\.toml|\\.formatter\\.exs|\\.sbtopts|\\.jvmopts|[^/]*\\.gradle(\\.kts)?|gradle\\.properties|gradlew(\\.bat)?|mvnw(\\.cmd)?|[^/]*\\.(csproj|fsproj|vbproj|vcxproj|proj|targets|props)|nuget\\.config|global\\.json|web\\.config|server\\.xml|ruby_lsp/[^/]+/addon',
    ),
    why: 'build scripts',
  },
  // Windows runs a program of this name from the current folder before the one on PATH (cmd.exe).
  { pattern: /\.(bat|cmd|com|exe)$/i, why: 'a program Windows may run in place of a command' },
];

/** The class a workspace-relative path belongs to, if it is protected. */
export function protectedClass(relPath: string): ProtectedClass | undefined {
  const p = relPath.replace(/\\/g, '/');
  return PROTECTED_CLASSES.find((c) => c.pattern.test(p));
}

/**
 * What the card and the Grants view say of a grant that lets the agent write many files (e.g. the
 * agent's "Always allow" on an edit, which becomes `write **`): writing files amounts to running
 * commands. Undefined for a command grant or a grant of one exact path.
 */
export function broadWriteGrantNote(pattern: { kind: 'write' | 'command'; pathGlob?: string }): string | undefined {
  if (pattern.kind !== 'write') return undefined;
  if (pattern.pathGlob !== undefined && !/(^|[^\\])[*?[\]{}()!+@]/.test(pattern.pathGlob)) return undefined;
  return BROAD_WRITE_NOTE;
}

/** The sentence of {@link broadWriteGrantNote}. */
export const BROAD_WRITE_NOTE =
  'Writing files amounts to running commands: your tools run many of the files they read (tests, scripts, build files, configs). Files known to be run (hooks, package.json, CI workflows, tool configs, rc files…) still ask each time, but any other file this grant covers may be run later by a command you or a grant allow.';
