// Mocha entry point for the in-editor tests, loaded by VS Code's extension host through
// `extensionTestsPath` (scripts/run-vscode-tests.mjs). esbuild bundles every test/integration/*.ts
// into out/test/integration/*.js; this file runs every `*.test.js` next to it, in name order.
// BDD UI (describe/it), 120 s default timeout.
// env: SWITCHBOARD_TEST_GREP   only run tests whose full title matches this regexp
//      SWITCHBOARD_TEST_RESULT_FILE   receives a line "failed: <title>: <message>" per failed test, then
//                                     "N passed, N failed" (set by the runner; test-all.sh repeats the
//                                     failed lines at the end of its output, where CI's tail shows them)
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  // the ✔/✖ symbols come pre-coloured (log-symbols, which colours whenever CI is set): plain text
  // keeps the runner's stdout and CI logs readable
  Mocha.reporters.Base.symbols.ok = '✔';
  Mocha.reporters.Base.symbols.err = '✖';
  const grep = process.env.SWITCHBOARD_TEST_GREP;
  if (grep) mocha.grep(new RegExp(grep));
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  const resultFile = process.env.SWITCHBOARD_TEST_RESULT_FILE;
  const failedLines: string[] = [];
  const report = (passed: number, failed: number): string => {
    const summary = `${passed} passed, ${failed} failed`;
    console.log(summary);
    if (resultFile) {
      try { fs.writeFileSync(resultFile, [...failedLines, summary].join('\n') + '\n'); } catch (e) { console.error(`cannot write ${resultFile}: ${String(e)}`); }
    }
    return summary;
  };
  if (files.length === 0) {
    failedLines.push(`failed: no *.test.js files next to ${__filename}`);
    report(0, 1);
    return Promise.reject(new Error(`no *.test.js files next to ${__filename}`));
  }
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const summary = report(runner.stats?.passes ?? 0, failures);
        if (failures > 0) reject(new Error(`in-editor tests: ${summary}`));
        else resolve();
      });
      runner.on('fail', (test, err: unknown) => {
        const message = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);
        failedLines.push(`failed: ${test.fullTitle()}: ${message}`.replace(/[\r\n]/g, ' '));
      });
    } catch (e) {
      // a test file failed to load (syntax error, top-level throw, ...)
      failedLines.push(`failed: loading the test files: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
      report(0, 1);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
