/**
 * `iconv-lite`, built as a bundle of its own (`dist/vendor/iconv.js`, ~0.5 MB of code tables) and
 * required only when a file is not UTF-8, through `src/edits/encoding.ts` (PF6).
 */
import iconv from 'iconv-lite';

export default iconv;
