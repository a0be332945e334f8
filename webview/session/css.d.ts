/** esbuild loads `.css` imports as text (`loader: { '.css': 'text' }`). */
declare module '*.css' {
  const text: string;
  export default text;
}
