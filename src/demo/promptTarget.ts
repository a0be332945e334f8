/**
 * Which file the demo turn writes: the one the person's prompt names ("create notes/todo.md with a
 * list" → `notes/todo.md`), else the demo's own `demo/hello.md`. A script cannot understand a
 * prompt, so it looks for the first word that reads as a file path; a path that leaves the session's
 * folder is refused here (the client's gate refuses it too).
 */
import * as path from 'node:path';

/** What the prompt named: nothing, a file inside the folder, or a path outside it. */
export type PromptTarget =
  | { kind: 'none' }
  | { kind: 'file'; relative: string; absolute: string }
  | { kind: 'outside'; named: string };

// A last path segment with an extension of letters/digits that starts with a letter ("todo.md", "a.tsx").
const FILE_NAME = /^\.?[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// Abbreviations that look like file names.
const NOT_FILES = new Set(['e.g', 'i.e', 'etc', 'a.m', 'p.m']);

/**
 * The first word of `prompt` that reads as a file path, resolved against `cwd`. Words with a
 * scheme (`https://…`) are skipped; trailing punctuation and surrounding quotes or backticks are
 * dropped.
 */
export function promptTarget(prompt: string, cwd: string): PromptTarget {
  for (const raw of prompt.split(/[\s()<>[\]{}]+/)) {
    const word = raw.replace(/^[`'"]+/, '').replace(/[`'".,;:!?]+$/, '');
    if (!word || word.includes('://')) continue;
    const last = word.split(/[\\/]/).pop() ?? '';
    if (!FILE_NAME.test(last) || NOT_FILES.has(last.toLowerCase())) continue;
    if (word.startsWith('~')) return { kind: 'outside', named: word };
    const absolute = path.resolve(cwd, word);
    const relative = path.relative(cwd, absolute);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return { kind: 'outside', named: word };
    return { kind: 'file', relative: relative.split(path.sep).join('/'), absolute };
  }
  return { kind: 'none' };
}

// Line comment per extension, so a code file the demo writes stays a valid file of its language.
const LINE_COMMENT: Record<string, string> = {
  ts: '//', tsx: '//', js: '//', jsx: '//', mjs: '//', cjs: '//', java: '//', c: '//', h: '//', cpp: '//', cs: '//', go: '//', rs: '//', swift: '//', kt: '//',
  py: '#', sh: '#', bash: '#', rb: '#', yaml: '#', yml: '#', toml: '#', r: '#', pl: '#',
  sql: '--', lua: '--', hs: '--',
};

/**
 * What the demo writes into a file the prompt named: a short text that says a script wrote it and
 * quotes the prompt, a to-do list in Markdown and plain text, comment lines in a code file. When the
 * file exists, the text is appended to what it holds, so the diff shows an addition.
 */
export function targetContent(relative: string, prompt: string, oldText: string | null): string {
  const ext = path.extname(relative).slice(1).toLowerCase();
  const asked = prompt.split('\n')[0].trim().slice(0, 200);
  const base = path.basename(relative, path.extname(relative));
  let lines: string[];
  if (ext in LINE_COMMENT) {
    const c = LINE_COMMENT[ext];
    lines = [`${c} Written by the offline demo agent (a script, not a model) for the prompt:`, `${c} ${asked}`];
  } else {
    const list = ['- [ ] First item', '- [ ] Second item', '- [ ] Third item'];
    const intro = ['Written by the offline demo agent (a script, not a model) for the prompt:', '', `> ${asked}`, ''];
    lines = ext === 'md' || ext === 'markdown' ? [`# ${base}`, '', ...intro, ...list] : [...intro, ...list];
  }
  const added = lines.join('\n') + '\n';
  if (oldText === null || oldText === '') return added;
  return oldText.endsWith('\n') ? `${oldText}\n${added}` : `${oldText}\n\n${added}`;
}
