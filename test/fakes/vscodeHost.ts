/**
 * Makes `require('vscode')` load test/fakes/fakeVscode.ts, so a test can construct the extension's
 * view classes under Node. Import this module before any module that imports `vscode`.
 */
import Module from 'node:module';

const fake = require.resolve('./fakeVscode');
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = loader._resolveFilename;
if (!(resolve as { fakeVscode?: boolean }).fakeVscode) {
  const patched = function (this: unknown, request: string, ...rest: unknown[]): string {
    return request === 'vscode' ? fake : resolve.call(this, request, ...rest);
  };
  (patched as { fakeVscode?: boolean }).fakeVscode = true;
  loader._resolveFilename = patched;
}

export * from './fakeVscode';
