// Lint: TypeScript rules plus the layering rule of ARCHITECTURE.md: only the extension entry,
// the composition root, views/ and `vscode*.ts` adapters may import `vscode`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/fakes/*.mjs', 'test/fixtures/hello-world-extension/**', '*.mjs', 'scripts/**', '.vscode-test.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Pure rooms must not import vscode (ARCHITECTURE.md). Use a port, or put the code in views/ or a vscode*.ts adapter.' }] }],
    },
  },
  {
    files: ['src/extension.ts', 'src/app.ts', 'src/views/**', 'src/**/vscode*.ts', 'test/integration/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
