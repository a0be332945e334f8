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
    // Untrusted text never becomes a link, an icon or markup (issue 16, finding 1): a notification's
    // message, a progress or input title/prompt and Markdown are literals or built with the `text` /
    // `markdown` templates of src/common/untrustedText.ts, which make every interpolated value inert.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name=/^show(Information|Warning|Error)Message$/]:not([arguments.0.type='TaggedTemplateExpression'][arguments.0.tag.name='text']):not([arguments.0.type='CallExpression'][arguments.0.callee.object.name='l10n'][arguments.0.callee.property.name='t'])",
          message: 'Build the message with the text`…` template of src/common/untrustedText.ts (a literal too: text`…` is what goes through vscode.l10n): agent, server and repository text in a notification becomes a runnable command: link.',
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(withProgress|showInputBox|showQuickPick|createQuickPick)$/] Property[key.name=/^(title|prompt|placeHolder)$/]:not([value.type='Literal']):not([value.type='TemplateLiteral'][value.expressions.length=0]):not([value.type='TaggedTemplateExpression'][value.tag.name='text'])",
          message: 'Build the title/prompt/progress message with the text`…` template of src/common/untrustedText.ts (or pass a literal): progress notifications and input prompts render links.',
        },
        {
          selector: "CallExpression[callee.property.name='report'] > ObjectExpression > Property[key.name='message']:not([value.type='Literal']):not([value.type='TemplateLiteral'][value.expressions.length=0]):not([value.type='TaggedTemplateExpression'][value.tag.name='text'])",
          message: 'Build the progress message with the text`…` template of src/common/untrustedText.ts: progress notifications render links.',
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(appendMarkdown)$/]:not([arguments.0.type='Literal']):not([arguments.0.type='TemplateLiteral'][arguments.0.expressions.length=0]):not([arguments.0.type='TaggedTemplateExpression'][arguments.0.tag.name='markdown']):not([arguments.0.type='CallExpression'][arguments.0.callee.name='markdownCodeBlock'])",
          message: 'Build Markdown with the markdown`…` template of src/common/untrustedText.ts, or use appendText / appendMarkdown(markdownCodeBlock(…)) for text you did not write.',
        },
        {
          // Its fence is measured on runs of backticks at the start of a line only: a diff line ' ```' closes it.
          selector: "CallExpression[callee.property.name='appendCodeblock']",
          message: 'Show code with appendMarkdown(markdownCodeBlock(…)) of src/common/untrustedText.ts: the fence of appendCodeblock can be closed by the text.',
        },
        {
          selector: "NewExpression[callee.property.name='MarkdownString'][arguments.length>0]",
          message: 'Start an empty MarkdownString and add to it with appendText / appendMarkdown(markdownCodeBlock(…)) / appendMarkdown(markdown`…`).',
        },
        {
          selector: "AssignmentExpression[left.property.name=/^(isTrusted|supportHtml|supportThemeIcons|enableCommandUris)$/], Property[key.name=/^(isTrusted|supportHtml|supportThemeIcons|enableCommandUris)$/][value.value=true]",
          message: 'Markdown and webviews that show untrusted text never trust it with commands, HTML or icons.',
        },
      ],
    },
  },
  {
    files: ['src/extension.ts', 'src/app.ts', 'src/views/**', 'src/**/vscode*.ts', 'test/integration/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
