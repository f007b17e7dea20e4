// Where each recovered file goes below the output folder, without Node: the recovery tool
// (recovery/portable-names.ts), the app and the heir's recovery page place names by these rules. Names
// come from the authenticated blob (or, for old blobs, from the caller), never from a transaction id,
// asset id or a service's listing. Two different paths that one file system would take for the same
// name (Windows' character mapping, `notes.` and `notes`, or only capital letters apart, as on Windows
// and macOS disks) would lose a file there, so the later one is renamed `name (2)` and the rename
// reported, on every platform: the recovered folder stays whole wherever it is copied.

/** The longest file name (one path segment) most file systems hold, in UTF-8 bytes. */
export const NAME_MAX_BYTES = 255

// Device names Windows keeps in every folder, with any extension: COM¹ and LPT¹ (superscript digits)
// are devices too, as are the console's CONIN$ and CONOUT$.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *(\..*)?$/i

/**
 * A name Windows can hold (FORMAT.md 3.8: rename rather than refuse): the characters it forbids become
 * '_', trailing dots and spaces are dropped, and reserved device names (CON, NUL, COM1...) get a '_'.
 */
export function windowsSafeSegment(segment: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  let safe = segment.replace(/[<>:"|?*\u0000-\u001f]/g, '_').replace(/[. ]+$/, '')
  if (safe === '') safe = '_'
  return WINDOWS_RESERVED.test(safe) ? `_${safe}` : safe
}

/**
 * The segments of a '/'-separated relative path from a blob, or null when one could leave the folder
 * it is written below or is no name at all (empty, '.', '..', a backslash, a control character).
 */
export function confinedSegments(relativePath: string): string[] | null {
  const segments = relativePath.split('/')
  const unsafe = (s: string) =>
    s === '' ||
    s === '.' ||
    s === '..' ||
    s.includes('\\') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(s)
  return segments.some(unsafe) ? null : segments
}

const utf8Length = (text: string) => new TextEncoder().encode(text).length

/** The name a path gets on the strictest disk: Windows' mapping, Unicode NFC, capital letters folded. */
export function portableKey(relativePath: string): string {
  return relativePath
    .split('/')
    .map((segment) => windowsSafeSegment(segment.normalize('NFC')).normalize('NFC').toLowerCase())
    .join('/')
}

/** `stem (n).ext`, the stem shortened (by whole characters) so that the name stays within 255 bytes. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.')
  // As path.extname: a leading dot (".profile") starts a name, not an extension.
  const ext = dot > 0 ? name.slice(dot) : ''
  const suffix = ` (${n})${ext}`
  let stem = [...name.slice(0, name.length - ext.length)]
  while (stem.length > 1 && utf8Length(stem.join('') + suffix) > NAME_MAX_BYTES) stem = stem.slice(0, -1)
  return stem.join('') + suffix
}

/** Where a path was placed, and why it was renamed when it was. */
export interface PlacedName {
  relativePath: string
  /** For the report: the other file of this run that kept the name. */
  renamedBecause?: string
}

/** The names given out in one recovery run: each path keeps one place, and no two collide anywhere. */
export class OutputNames {
  private readonly owners = new Map<string, string>()
  private readonly placed = new Map<string, PlacedName>()

  /** The place for `path` ('/'-separated): its own name, or `name (2)` when another path took it. */
  place(path: string): PlacedName {
    const known = this.placed.get(path)
    if (known) return known
    const owner = this.owners.get(portableKey(path))
    let result: PlacedName = { relativePath: path }
    if (owner !== undefined) {
      const at = path.lastIndexOf('/')
      const folder = path.slice(0, at + 1)
      const name = path.slice(at + 1)
      let n = 2
      while (this.owners.has(portableKey(folder + numberedName(name, n)))) n++
      result = { relativePath: folder + numberedName(name, n), renamedBecause: owner }
    }
    this.owners.set(portableKey(result.relativePath), path)
    this.placed.set(path, result)
    return result
  }
}

/** The report's words for a renamed file. */
export function renameNote(placed: PlacedName): string | undefined {
  if (placed.renamedBecause === undefined) return undefined
  return `Saved as "${placed.relativePath}": another file of the vault, "${placed.renamedBecause}", has a name that Windows or a Mac would take for the same one, so this one was renamed to keep both.`
}
