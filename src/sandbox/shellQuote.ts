/** `'…'` quoting for a POSIX shell: the word stays exactly itself. */
export function shellQuote(word: string): string {
  return /^[\w@%+:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
