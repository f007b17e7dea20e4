// Names that come from outside the app's own words (a file's name, what a service or a kit says)
// shown so they can neither disguise themselves nor reorder the sentence around them. A name such as
// 'photo' + U+202E + 'gpj.exe' is drawn "photoexe.jpg" by any text renderer, and the override runs
// on to the end of the line, mirroring the app's sentence that follows it. Here every such
// character is replaced by a visible marker ("photo[U+202E]gpj.exe"), and a name placed inside a
// sentence is wrapped in a first-strong isolate (U+2068 ... U+2069) so its own direction (a Hebrew
// or Arabic name, say) stays inside it. Used by the window, the e-mails and pages of the service,
// the printed kits and the recovery tool's report.

/** U+2068 FIRST STRONG ISOLATE: opens a run whose direction is its own first letter's. */
export const FSI = '\u2068'
/** U+2069 POP DIRECTIONAL ISOLATE: closes it. */
export const PDI = '\u2069'

/**
 * Characters shown as markers:
 * - bidirectional controls: U+061C ALM, U+200E LRM, U+200F RLM, embeddings and overrides
 *   U+202A-U+202E, isolates U+2066-U+2069;
 * - C0 and C1 controls and DEL (a line break in a name could forge a line of a report or e-mail);
 * - invisible characters that hide or join text without showing: U+00AD soft hyphen, U+200B zero
 *   width space, U+2028/U+2029 line and paragraph separators, U+2060-U+2064 (word joiner, invisible
 *   operators), U+FEFF, U+FFF9-U+FFFB interlinear annotation.
 * U+200C/U+200D (zero width non-joiner and joiner) stay: Persian words and emoji need them, and they
 * reorder nothing.
 */
const HIDDEN =
  /[\p{Cc}\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/gu
/** The same without FSI and PDI, which the app itself puts round names inside its sentences. Line
 * breaks and tabs of such a sentence are its own too (the page folds them into spaces). */
const HIDDEN_EXCEPT_ISOLATES =
  /[\p{Cc}\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066\u2067\ufeff\ufff9-\ufffb]/gu

function marker(char: string): string {
  return `[U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`
}

/** True when `text` holds a character that `revealControls` would replace. */
export function hasHiddenControls(text: string): boolean {
  HIDDEN.lastIndex = 0
  const found = HIDDEN.test(text)
  HIDDEN.lastIndex = 0
  return found
}

/** `text` with every reordering or invisible character replaced by "[U+XXXX]". */
export function revealControls(text: string): string {
  // String(): a message's argument may arrive as a number where the catalogue's tests feed samples.
  return String(text).replace(HIDDEN, marker)
}

/**
 * An untrusted name ready to be put inside a sentence of plain text (an e-mail, a toast, a line of
 * the recovery report): its hidden characters shown and its direction isolated.
 */
export function isolateName(name: string): string {
  return `${FSI}${revealControls(name)}${PDI}`
}

/**
 * A whole sentence that may hold untrusted names (a message another part of the app wrote): every
 * hidden character shown, except the FSI/PDI isolates the app put round names with `isolateName`.
 * Safe to keep them: an isolate only shields its contents; it cannot turn the text around it over.
 */
export function revealSentence(text: string): string {
  return text.replace(HIDDEN_EXCEPT_ISOLATES, (char) =>
    char === '\n' || char === '\t' ? char : marker(char),
  )
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** An untrusted name for an HTML page: escaped, hidden characters shown, in a <bdi> of its own. */
export function isolateNameHtml(name: string): string {
  return `<bdi>${revealControls(name).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)}</bdi>`
}
