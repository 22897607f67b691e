/**
 * TSDoc comments for generated declarations: the text given to a
 * declaration's `docs`, and the module comment of `index.ts`.
 * @module
 */

/** The width of comment text, so that indented comment lines stay well within 100 columns. */
export const DOC_WIDTH = 80;

/** `lines` with `*\/` escaped, trailing spaces and blank edge lines removed. */
function commentLines(lines: readonly string[]): string[] {
  const safe = lines.map((l) => l.replaceAll('*/', '*\\/').trimEnd());
  let start = 0;
  let end = safe.length;
  while (start < end && safe[start] === '') start++;
  while (end > start && safe[end - 1] === '') end--;
  return safe.slice(start, end);
}

/**
 * The `docs` of a declaration holding `lines` (Markdown): none when there is
 * no text; one line (`/** … *\/`) when there is one short line; else a block
 * with one ` * ` line each. `*\/` in the text is escaped so it cannot end the
 * comment early.
 */
export function docs(lines: readonly string[]): string[] {
  const safe = commentLines(lines);
  if (safe.length === 0) return [];
  if (safe.length === 1 && safe[0]!.length <= DOC_WIDTH) return [safe[0]!];
  // A leading line break makes the comment a block even for one long line.
  return [`\n${safe.join('\n')}`];
}

/** A complete `/** … *\/` block comment holding `lines`, one ` * ` line each. */
export function blockComment(lines: readonly string[]): string {
  const body = commentLines(lines).map((l) => (l === '' ? ' *' : ` * ${l}`));
  return ['/**', ...body, ' */'].join('\n');
}

/** Join paragraphs (each a list of lines) with blank lines, skipping empty ones. */
export function paragraphs(...parts: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p.length === 0) continue;
    if (out.length > 0) out.push('');
    out.push(...p);
  }
  return out;
}
