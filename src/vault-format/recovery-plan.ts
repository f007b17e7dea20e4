// Which copy of each file a recovery run writes, by docs/FORMAT.md 3.11 (the rules every recovery
// shares: the recovery tool, the app and the heir's recovery page, which reads no files of its own):
// from what the blobs authenticate, and a source's word (upload time, block time) only for the old
// formats that carry no date, and never above a copy that does.
// - With vault manifests (alone or inside bundles), the one with the highest sequence number is the
//   vault's current list: exactly its files are recovered, a copy fulfilling an entry by path, size
//   and content SHA-256 (checked before the file gets its name; a format-1 copy, which has no path,
//   by size and SHA-256, written at the entry's path). A listed file no copy fulfils is named missing
//   (no copy of its path) or damaged; an older copy is not written in its place. Copies that fulfil
//   nothing are reported as older than the list, or newer (written after it).
// - Without one: per path, the newest copy: format 3 and bundle 2 by their sealed write time, bundle
//   1 by its createdAt, format 1 and 2 by the source's date but never above a format-3 or bundle-2
//   copy; copies with no date at all after every dated one, the first given winning. A copy that
//   fails hands its path to the next one in a later round; the report says the older one was written.
import { plaintextLength } from './chunked-format'
import type { OpenedVaultBlob } from './file-cipher'
import { type ManifestEntry, newestManifest, type VaultManifest } from './vault-manifest'

/** One copy of a file: a file blob's one file (index 0), or one file of a bundle (its position). */
export interface SurveyedCopy {
  input: string
  index: number
  /** '/'-separated, from the authenticated record (or the caller's name for a format-1 blob). */
  path: string
  /** From the record, or (format 1) from the blob's length. */
  size: number
  /** The authenticated write time, when the copy has one (format 3, bundles). */
  writtenAtMs?: number
  /** Written by an app that also writes manifests: a format-3 file or a file of a bundle of version 2. */
  sealed: boolean
  /** A format-1 file: no path of its own. */
  pathless: boolean
  /** For a file of format 1 or 2 only: the date its source gives (service upload, Arweave block). */
  sourceDateMs?: number
  /** Where the run met it, for "first given" among undated copies. */
  order: number
}

/** What one encrypted file turned out to be. */
export interface SurveyedBlob {
  input: string
  kind: 'file' | 'bundle' | 'manifest'
  copies: SurveyedCopy[]
  /** A manifest stored alone, or the one embedded in a bundle. */
  manifest?: VaultManifest
}

/**
 * What an opened blob holds, for the plan: the records of a file or a bundle, or a whole manifest. Its
 * body (or a bundle's entries) is closed here: the plan needs no content.
 */
export async function surveyOpened(
  input: string,
  opened: OpenedVaultBlob,
  source: { fallbackPath: string; encryptedBytes: number; sourceDateMs?: number },
  order: () => number,
): Promise<SurveyedBlob> {
  if (opened.kind === 'manifest') return { input, kind: 'manifest', copies: [], manifest: opened.manifest }
  if (opened.kind === 'file') {
    await opened.body.return?.()
    const identity = opened.identity
    const dated = identity?.writtenAtMs !== undefined
    return {
      input,
      kind: 'file',
      copies: [
        {
          input,
          index: 0,
          path: identity?.path ?? source.fallbackPath,
          // A format-1 blob holds only the content.
          size: identity?.size ?? plaintextLength(source.encryptedBytes),
          ...(dated ? { writtenAtMs: identity.writtenAtMs } : {}),
          sealed: opened.version === 3,
          pathless: identity === null,
          ...(!dated && source.sourceDateMs !== undefined ? { sourceDateMs: source.sourceDateMs } : {}),
          order: order(),
        },
      ],
    }
  }
  await opened.entries.return?.()
  return {
    input,
    kind: 'bundle',
    // A bundle of version 1 dates its files by its authenticated header.
    copies: opened.files.map((identity, index) => ({
      input,
      index,
      path: identity.path,
      size: identity.size,
      writtenAtMs: identity.writtenAtMs ?? opened.createdAtMs,
      sealed: opened.version === 2,
      pathless: false,
      order: order(),
    })),
    ...(opened.manifest ? { manifest: opened.manifest } : {}),
  }
}

/** "2024-05-01 10:00 UTC" */
export function shownTime(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`
}

/** How a tried copy ended. */
export type CopyOutcome = 'written' | 'kept' | 'blocked' | 'failed' | 'other-content'

/** A copy the run did not write, and why (for its report line). */
export interface LeftOut {
  copy: SurveyedCopy
  status: 'superseded' | 'newer'
  message: string
}

/** A listed file no copy fulfilled: none found (missing), or none intact with the listed content (damaged). */
export interface MissingFile {
  entry: ManifestEntry
  damaged: boolean
  message: string
}

/** The manifest the run recovered by, for the report. */
export interface ManifestUsed {
  sequence: number
  writtenAtMs: number
  listed: number
  /** Encrypted files holding it (the first is named). */
  inputs: string[]
  /** Manifests with a lower number, set aside. */
  older: number
  /** Different manifests with the same number (a faulty or hostile writer): set aside, said loudly. */
  rivals: string[]
}

interface Candidate {
  copy: SurveyedCopy
  /** Where it is written: its own path, or the entry's (a format-1 copy). */
  path: string
  /** The entry's hash it must have (with a manifest). */
  sha256?: string
}

const key = (copy: { input: string; index: number }, path: string) =>
  `${copy.input}\u0000${copy.index}\u0000${path}`
const copyKey = (copy: { input: string; index: number }) => `${copy.input}\u0000${copy.index}`

export class RecoveryPlan {
  readonly manifest: ManifestUsed | null
  /** No manifest was found, yet copies only an app that writes manifests makes were (FORMAT.md 3.11). */
  readonly manifestExpected: boolean
  /** Per target path, the copies to try in turn. */
  private readonly candidates = new Map<string, Candidate[]>()
  private readonly next = new Map<string, number>()
  private readonly tried = new Map<string, CopyOutcome>()
  private readonly settledBy = new Map<string, Candidate>()
  private readonly listed = new Map<string, ManifestEntry>()
  private readonly all: SurveyedCopy[]
  private readonly list: VaultManifest | null

  constructor(
    blobs: readonly SurveyedBlob[],
    private readonly describe: (copy: SurveyedCopy) => string,
  ) {
    const manifests = blobs.flatMap((blob) =>
      blob.manifest ? [{ input: blob.input, manifest: blob.manifest }] : [],
    )
    const choice = newestManifest(manifests)
    const chosen = choice.chosen
    this.list = chosen?.manifest ?? null
    this.manifest = chosen
      ? {
          sequence: chosen.manifest.sequence,
          writtenAtMs: chosen.manifest.writtenAtMs,
          listed: chosen.manifest.entries.length,
          inputs: [chosen.input, ...choice.copies.map((c) => c.input)],
          older: choice.older.length,
          rivals: choice.rivals.map((r) => r.input),
        }
      : null
    this.all = blobs.flatMap((blob) => blob.copies)
    this.manifestExpected = !chosen && this.all.some((copy) => copy.sealed)
    const byPath = new Map<string, SurveyedCopy[]>()
    for (const copy of this.all) byPath.set(copy.path, [...(byPath.get(copy.path) ?? []), copy])
    if (!chosen) {
      for (const [path, copies] of byPath)
        this.candidates.set(
          path,
          newestFirst(copies).map((copy) => ({ copy, path })),
        )
      return
    }
    for (const entry of chosen.manifest.entries) {
      this.listed.set(entry.path, entry)
      // The copy sealed with the listed write time first; any other of the listed size may still hold
      // the listed content (the hash decides); format-1 copies of that size last.
      const own = (byPath.get(entry.path) ?? []).filter((c) => !c.pathless && c.size === entry.size)
      own.sort(
        (a, b) =>
          Number(b.writtenAtMs === entry.writtenAtMs) - Number(a.writtenAtMs === entry.writtenAtMs) ||
          a.order - b.order,
      )
      const pathless = this.all.filter((c) => c.pathless && c.size === entry.size)
      this.candidates.set(
        entry.path,
        [...own, ...pathless].map((copy) => ({ copy, path: entry.path, sha256: entry.sha256 })),
      )
    }
  }

  /** The candidate to try now for each path not settled yet. */
  #currents(): Candidate[] {
    const out: Candidate[] = []
    for (const [path, list] of this.candidates) {
      if (this.settledBy.has(path)) continue
      const current = list[this.next.get(path) ?? 0]
      if (current) out.push(current)
    }
    return out
  }

  /**
   * For the writer: null leaves this copy out of this round; else write it at `path`, checking the
   * hash given. A file blob answers for index 0.
   */
  select = (input: string, index: number): { path: string; expectSha256?: string } | null => {
    const current = this.#currents().find((c) => c.copy.input === input && c.copy.index === index)
    if (!current) return null
    return { path: current.path, ...(current.sha256 ? { expectSha256: current.sha256 } : {}) }
  }

  /** How many copies were tried so far (each at most once per path). */
  get attempts(): number {
    return this.tried.size
  }

  /** The inputs holding a copy to try now. */
  pendingInputs(): string[] {
    return [...new Set(this.#currents().map((c) => c.copy.input))]
  }

  /** Records how a tried copy ended at `path`; a failure moves that path on to the next copy. */
  record(copy: { input: string; index: number }, path: string, outcome: CopyOutcome): void {
    const list = this.candidates.get(path) ?? []
    const at = this.next.get(path) ?? 0
    this.tried.set(key(copy, path), outcome)
    if (outcome === 'written' || outcome === 'kept' || outcome === 'blocked') {
      if (list[at]) this.settledBy.set(path, list[at]!)
      return
    }
    this.next.set(path, at + 1)
  }

  /** Every copy of this input due now failed before anything could be said of it (the blob would not open). */
  failInput(input: string): void {
    for (const current of this.#currents())
      if (current.copy.input === input) this.record(current.copy, current.path, 'failed')
  }

  /** For a copy written after the newest copy of its path failed (no manifest): says so. */
  olderCopyNote(copy: { input: string; index: number }, path: string): string | undefined {
    if (this.list) return undefined
    const list = this.candidates.get(path) ?? []
    const at = list.findIndex((c) => key(c.copy, c.path) === key(copy, path))
    if (at <= 0) return undefined
    return `Recovered from an older copy: the newest copy (${this.describe(list[0]!.copy)}) could not be recovered, so this is not the latest version.`
  }

  /** Whether a copy that fulfils no entry of the list was written after it. */
  #newer(copy: SurveyedCopy): boolean {
    return this.list !== null && copy.writtenAtMs !== undefined && copy.writtenAtMs > this.list.writtenAtMs
  }

  /** How to report a copy not written (never tried, or not the listed content). */
  private leftOut(copy: SurveyedCopy): LeftOut {
    const list = this.list
    if (list) {
      const fulfilled = this.listed.has(copy.path) && this.settledBy.has(copy.path)
      if (this.#newer(copy)) {
        return {
          copy,
          status: 'newer',
          message: `Not recovered: this copy was written ${shownTime(copy.writtenAtMs!)}, after the vault's newest list of files (number ${list.sequence}, ${shownTime(list.writtenAtMs)}), and it is not a file of that list. A newer list may have been withheld or lost; if you need this copy, recover its encrypted file on its own.`,
        }
      }
      return {
        copy,
        status: 'superseded',
        message: fulfilled
          ? `An older copy: the version the vault's newest list of files names (${this.describe(this.settledBy.get(copy.path)!.copy)}) was recovered; this copy was left out.`
          : this.listed.has(copy.path)
            ? `Not recovered: it is not the version the vault's newest list of files (number ${list.sequence}) names. If you need it, recover its encrypted file on its own.`
            : `Not recovered: the vault's newest list of files (number ${list.sequence}, ${shownTime(list.writtenAtMs)}) does not name it, so the owner removed or replaced it before then. If you need it, recover its encrypted file on its own.`,
      }
    }
    const winner = this.settledBy.get(copy.path)
    const blocked = winner && this.tried.get(key(winner.copy, winner.path)) === 'blocked'
    const undated = copy.writtenAtMs === undefined && copy.sourceDateMs === undefined
    return {
      copy,
      status: 'superseded',
      message: !winner
        ? 'Not recovered: no copy of this file could be recovered.'
        : blocked
          ? `A newer copy of this file (${this.describe(winner.copy)}) could not be written because a different file is in the way; this older copy was left out too.`
          : `A newer copy of this file (${this.describe(winner.copy)}) was recovered in this run; this older copy was left out.${undated ? ' Copies without a date inside were taken in the order given, as their order was not known.' : ''}`,
    }
  }

  /** Copies never tried and never written, and why; call once the rounds are over. */
  leftOvers(): LeftOut[] {
    // Copies written, failed or blocked have their own line; the others (never tried, or tried only
    // to find other content than the list's) are reported here.
    const outcomes = new Map<string, CopyOutcome[]>()
    for (const [k, outcome] of this.tried) {
      const copy = k.split('\u0000').slice(0, 2).join('\u0000')
      outcomes.set(copy, [...(outcomes.get(copy) ?? []), outcome])
    }
    return this.all
      .filter((copy) => (outcomes.get(copyKey(copy)) ?? []).every((o) => o === 'other-content'))
      .map((copy) => this.leftOut(copy))
  }

  /** Listed files no copy fulfilled. */
  missing(): MissingFile[] {
    if (!this.manifest) return []
    const out: MissingFile[] = []
    for (const [path, entry] of this.listed) {
      if (this.settledBy.has(path)) continue
      const found = this.all.some((copy) => copy.path === path)
      const what = `the vault's newest list of files (number ${this.manifest.sequence}) names this file (${entry.size} bytes, written ${shownTime(entry.writtenAtMs)})`
      out.push({
        entry,
        damaged: found,
        message: found
          ? `Damaged: ${what}, but no copy of it decrypted to the listed content (see the lines about its copies). Nothing was written for it; an older copy is not written in its place.`
          : `Missing: ${what}, but no copy of it was among the files handed over. Nothing was written for it. The service or gateway may have withheld or lost it; if there is another copy of the vault's encrypted files, recover from it.`,
      })
    }
    return out
  }
}

/**
 * Newest first (FORMAT.md 3.11, no manifest): sealed and bundle dates as they are; a format-1/2 file's
 * source date, kept below every sealed copy of its path; then copies with no date, in the order given.
 */
function newestFirst(copies: readonly SurveyedCopy[]): SurveyedCopy[] {
  const sealedTimes = copies.filter((c) => c.sealed).map((c) => c.writtenAtMs!)
  const floor = sealedTimes.length > 0 ? Math.min(...sealedTimes) - 0.5 : undefined
  const dateOf = (c: SurveyedCopy): number | undefined => {
    if (c.writtenAtMs !== undefined) return c.writtenAtMs
    if (c.sourceDateMs === undefined) return undefined
    return floor === undefined ? c.sourceDateMs : Math.min(c.sourceDateMs, floor)
  }
  return [...copies].sort((a, b) => {
    const da = dateOf(a)
    const db = dateOf(b)
    if (da !== undefined && db !== undefined && da !== db) return db - da
    if ((da === undefined) !== (db === undefined)) return da === undefined ? 1 : -1
    return a.order - b.order
  })
}
