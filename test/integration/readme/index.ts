// Mocha entry point of the README window (scripts/test-all.sh, "README pictures"): the same runner
// as the main window's (../index.ts), bundled into out/test/integration/readme/index.js, where its
// `__dirname` makes it run the `*.test.js` files of this folder only. The main window never sees
// these files: it reads its own folder, not the folders below it.
export { run } from '../index';
