// What is accepted from a Vault Service before anyone uses it, as pure checks: the app's client
// (service-client/answer-checks.ts) and the heir's recovery page both refuse the same answers. A
// service can be wrong or hostile: ids reach request paths, sizes reach arithmetic, states reach the
// heir's report. Each check returns the problem in words (English, technical detail) or null.
import { type Asset, VAULT_STATES } from './api'
import { assetMetadata } from './asset-metadata'

/** An id a service may give (vault, asset): letters, digits, '_' and '-', as UUIDs and the local service's ids are. */
export const SERVICE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/** The most assets one vault listing may bring (1000 pages of 100): a service that pages on for ever is stopped. */
export const MAX_LISTED_ASSETS = 100_000

/** A value shown in a message: short, one line, quoted. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is hidden
  const line = text.replace(/[\u0000-\u001f\u007f]/g, '?')
  return `"${line.length > 60 ? `${line.slice(0, 60)}…` : line}"`
}

export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What is wrong with a vault answer (with `expectedId`, it must be the one asked for), or null. */
export function vaultProblem(value: unknown, expectedId?: string): string | null {
  if (!isObject(value)) return 'a vault that is not an object'
  const { id, state } = value
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) return `a vault id ${shown(id)} that is not an id`
  if (expectedId !== undefined && id !== expectedId) {
    return `vault ${shown(id)} when vault ${shown(expectedId)} was asked for`
  }
  if (!(VAULT_STATES as readonly unknown[]).includes(state)) {
    return `vault ${id} in a state ${shown(state)} that does not exist`
  }
  for (const field of ['creditsBalance', 'assetCount', 'guardianCount', 'heirCount'] as const) {
    if (field in value && !isCount(value[field])) return `vault ${id} with ${field} ${shown(value[field])}`
  }
  return null
}

/** What is wrong with one listed asset, or null. */
export function assetProblem(value: unknown): string | null {
  if (!isObject(value)) return 'an asset that is not an object'
  const { id, sizeBytes, filename } = value
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) return `an asset id ${shown(id)} that is not an id`
  if (!isCount(sizeBytes)) return `asset ${id} with a size of ${shown(sizeBytes)}`
  if (typeof filename !== 'string') return `asset ${id} without a file name`
  return null
}

/**
 * What is wrong with one page of a listing (each asset, an id listed twice across pages: `seen`
 * collects them, the total, a listing past MAX_LISTED_ASSETS), or null. Adds the page's ids to `seen`.
 */
export function assetPageProblem(value: unknown, total: unknown, seen: Set<string>): string | null {
  if (!Array.isArray(value)) return 'an asset list that is not a list'
  if (total !== undefined && !isCount(total)) return `an asset count of ${shown(total)}`
  for (const item of value) {
    const problem = assetProblem(item)
    if (problem) return problem
    const id = (item as Asset).id
    if (seen.has(id)) return `asset ${id} listed twice`
    seen.add(id)
  }
  if (seen.size > MAX_LISTED_ASSETS) return `a vault listing that goes on past ${MAX_LISTED_ASSETS} files`
  return null
}

/** A relative path safe to write under an output folder: no "..", no absolute or drive parts; else undefined. */
export function safeRelativePath(candidate: string | undefined, reserved?: string): string | undefined {
  if (!candidate) return undefined
  const parts = candidate
    .split(/[\\/]+/)
    .map((p) => p.trim())
    .filter((p) => p && p !== '.' && p !== '..' && !/^[A-Za-z]:$/.test(p))
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (parts.length === 0 || parts.some((p) => /[\u0000-\u001f\u007f]/.test(p) || p === reserved))
    return undefined
  return parts.join('/')
}

/** What the uploader told the service about a file (unauthenticated: it only names and counts). */
export interface ListedFile {
  /** The name the heir knows it by: the uploader's relative path, else the service's file name, else `fallback`. */
  name: string
  uploadedAtMs?: number
  /** A bundle: how many files its upload said it holds. */
  fileCount?: number
  /** Its upload said it is only the vault's list of files: not one to show the heir. */
  listOnly?: boolean
  /** The uploader's declared size of the original file, when it gave a whole number. */
  declaredPlaintextBytes?: number
}

/**
 * The names and hints of a listing, in order. Asset ids never become names (`fallback(index)` does
 * when the service gives none usable), and two assets of one name both keep theirs: "a (2).txt".
 */
export function listedFiles(
  assets: readonly Asset[],
  fallback: (index: number) => string,
  reserved?: string,
): ListedFile[] {
  const used = new Set<string>()
  return assets.map((asset, index) => {
    const metadata = assetMetadata(asset)
    const fromMetadata = safeRelativePath(metadata.relativePath, reserved)
    let name = fromMetadata ?? safeRelativePath(asset.filename, reserved) ?? fallback(index)
    if (used.has(name.toLowerCase())) {
      const dot = name.lastIndexOf('.')
      const ext = dot > name.lastIndexOf('/') + 1 ? name.slice(dot) : ''
      const stem = name.slice(0, name.length - ext.length)
      for (let n = 2; used.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`
    }
    used.add(name.toLowerCase())
    const uploadedAtMs = Date.parse(asset.createdAt)
    const declared = metadata.plaintextBytes
    const fileCount = metadata.bundle ? metadata.fileCount : undefined
    return {
      name,
      ...(Number.isFinite(uploadedAtMs) ? { uploadedAtMs } : {}),
      ...(fileCount !== undefined ? { fileCount } : {}),
      ...(metadata.manifest && !metadata.bundle ? { listOnly: true } : {}),
      ...(declared !== undefined ? { declaredPlaintextBytes: declared } : {}),
    }
  })
}
