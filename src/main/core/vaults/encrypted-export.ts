// "Export an encrypted copy": the vault's blobs as .vault files, as the service holds them, into a folder
// the owner chooses (a USB stick for the heirs' drawer), with the recovery guide, the format, the
// recovery page (for an heir with only a browser) and the packed recovery tool beside them. Nothing is
// decrypted and no key is needed: each blob is streamed to a temp file, checked against the listing's
// size and the format's length rule, then renamed. The heirs' Recovery screen ("I have the encrypted
// files"), the command-line tool and the page read the folder as it is: they search it for .vault files
// and ignore everything else.
import { createHash } from 'node:crypto'
import { copyFile, lstat, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { type Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  createNewFile,
  localDownloadName,
  localTempName,
  makeConfinedFolders,
  outputRoot,
} from '../../../recovery/confined-write'
import { portableKey, windowsSafeSegment } from '../../../recovery/portable-names'
import type { Asset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { ExportMaterial } from '../../../shared/ipc/contract'
import { ENCRYPTED_FILE_SUFFIX, plaintextLength } from '../../../vault-format'
import {
  findShippedRecoveryPage,
  guideNamingPage,
  RECOVERY_PAGE_FILE,
  type ShippedRecoveryPage,
} from '../printable/recovery-page-digest'

/** The sub-folder holding the .vault files. */
export const EXPORT_BLOBS_FOLDER = 'encrypted-files'
/** The note for whoever finds the folder. */
export const EXPORT_README = 'README-FOR-HEIRS.txt'

/** What the export reads from the service: the listing and each blob's bytes. */
export interface EncryptedExportSource {
  listAllAssets(vaultId: string): Promise<Asset[]>
  downloadAsset(vaultId: string, assetId: string, signal?: AbortSignal): Promise<Readable>
}

/** Files shipped beside the blobs; a missing one is named in the README instead. */
export interface RecoveryMaterials {
  recoveryGuide?: string
  formatSpec?: string
  /** The packed tool, vault-recover-<version>.tgz (`npm run pack:recovery`). */
  recoveryTool?: string
  /** The recovery page (`npm run build:recovery-page`), the one whose SHA-256 the guardians' kits print. */
  recoveryPage?: ShippedRecoveryPage
}

export interface EncryptedExportProgress {
  fileNumber: number
  fileCount: number
  doneBytes: number
  totalBytes: number
}

export interface EncryptedExportResult {
  folder: string
  blobCount: number
  bytes: number
  /** Which of RECOVERY.md, FORMAT.md, the recovery page and the tool could not be included (the README says where to get them). */
  missing: ExportMaterial[]
}

export interface EncryptedExportOptions {
  source: EncryptedExportSource
  vaultId: string
  vaultName: string
  folder: string
  materials: RecoveryMaterials
  signal?: AbortSignal
  onProgress?: (progress: EncryptedExportProgress) => void
  now?: () => Date
}

// A storage id becomes a file name only when it is plainly a name on every disk; otherwise (or when two
// ids would be one name on a case-folding disk) the name is made here from a hash.
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/

/** The .vault file names for the listed blobs, one each, safe and distinct on any disk. */
export function exportNames(vaultId: string, assets: readonly Asset[]): string[] {
  const taken = new Set<string>()
  return assets.map((asset) => {
    const plain = PLAIN_ID.test(asset.id) && windowsSafeSegment(asset.id) === asset.id
    let name = `${plain ? asset.id : localDownloadName('service', vaultId, asset.id)}${ENCRYPTED_FILE_SUFFIX}`
    if (taken.has(portableKey(name)))
      name = `${localDownloadName('service', vaultId, `${asset.id}\u0000${taken.size}`)}${ENCRYPTED_FILE_SUFFIX}`
    taken.add(portableKey(name))
    return name
  })
}

/** The folder must be new or empty: an export never mixes with or replaces what is there. */
async function emptyFolder(folder: string): Promise<{ created: boolean }> {
  const info = await lstat(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!info) return { created: true }
  if (!info.isDirectory())
    throw new AppError({
      code: 'EXPORT_FOLDER_IN_USE',
      userMessage: `"${folder}" is a file, not a folder. Choose an empty folder (or a new folder's name) for the encrypted copy.`,
    })
  const entries = await readdir(folder)
  if (entries.length > 0)
    throw new AppError({
      code: 'EXPORT_FOLDER_IN_USE',
      userMessage: `"${folder}" is not empty (it holds ${entries.length} item${entries.length === 1 ? '' : 's'}). An encrypted copy never replaces or mixes with files already there: choose an empty folder, or a new folder's name.`,
    })
  return { created: false }
}

/** Streams one blob to `target` through a temp file; checked before it takes its name. */
async function exportBlob(
  opts: EncryptedExportOptions,
  asset: Asset,
  target: string,
  onBytes: (n: number) => void,
): Promise<void> {
  const temp = join(target, '..', localTempName())
  const handle = await createNewFile(temp)
  let received = 0
  try {
    const body = await opts.source.downloadAsset(opts.vaultId, asset.id, opts.signal)
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length
        if (received > asset.sizeBytes) {
          done(tooLong(asset))
          return
        }
        onBytes(chunk.length)
        done(null, chunk)
      },
    })
    // flush: the bytes reach the disk (a USB stick pulled out next) before the file takes its name.
    await pipeline(
      body,
      counter,
      handle.createWriteStream({ flush: true }),
      ...(opts.signal ? [{ signal: opts.signal }] : []),
    )
    if (received !== asset.sizeBytes)
      throw new AppError({
        code: 'EXPORT_BLOB_DAMAGED',
        userMessage: `The service sent ${received} bytes of encrypted file ${asset.id} instead of the ${asset.sizeBytes} it lists. Nothing was exported; try again, and if it keeps happening the file may be damaged on the service.`,
      })
    try {
      plaintextLength(received)
    } catch {
      throw new AppError({
        code: 'EXPORT_BLOB_DAMAGED',
        userMessage: `Encrypted file ${asset.id} on the service is ${received} bytes long, which no encrypted file can be: it was damaged or cut short. Nothing was exported; the vault's other files are fine, but this one cannot be recovered from any copy of the service.`,
      })
    }
  } catch (error) {
    await handle.close().catch(() => {})
    await rm(temp, { force: true })
    throw error
  }
  await rename(temp, target)
}

function tooLong(asset: Asset): AppError {
  return new AppError({
    code: 'EXPORT_BLOB_DAMAGED',
    userMessage: `The service sent more than the ${asset.sizeBytes} bytes it lists for encrypted file ${asset.id}. Nothing was exported; try again, and if it keeps happening tell whoever runs the service.`,
  })
}

/**
 * Copies one shipped file in through a temp name (through `edit`, for a text, when given); false when
 * it is not on this computer.
 */
async function copyMaterial(
  from: string | undefined,
  folder: string,
  name: string,
  edit?: (text: string) => string,
): Promise<boolean> {
  if (
    !from ||
    !(await stat(from)
      .then((s) => s.isFile())
      .catch(() => false))
  )
    return false
  const temp = join(folder, localTempName())
  if (edit) await writeFile(temp, edit(await readFile(from, 'utf8')), { flag: 'wx', mode: 0o644 })
  else await copyFile(from, temp)
  await rename(temp, join(folder, name))
  return true
}

/**
 * The recovery page and its .sha256 (sha256sum's format), copied in; its SHA-256 is the copied bytes',
 * so the README never names a value the page beside it does not have. Undefined without a page.
 */
async function copyPage(
  page: ShippedRecoveryPage | undefined,
  folder: string,
): Promise<ShippedRecoveryPage | undefined> {
  if (!page) return undefined
  const html = await readFile(page.path).catch(() => undefined)
  if (!html) return undefined
  const copied = {
    path: join(folder, RECOVERY_PAGE_FILE),
    sha256: createHash('sha256').update(html).digest('hex'),
  }
  for (const [name, bytes] of [
    [RECOVERY_PAGE_FILE, html],
    [`${RECOVERY_PAGE_FILE}.sha256`, `${copied.sha256}  ${RECOVERY_PAGE_FILE}\n`],
  ] as const) {
    const temp = join(folder, localTempName())
    await writeFile(temp, bytes, { flag: 'wx', mode: 0o644 })
    await rename(temp, join(folder, name))
  }
  return copied
}

function readme(
  opts: EncryptedExportOptions,
  result: Omit<EncryptedExportResult, 'folder'>,
  shipped: { tool: string | undefined; pageSha256: string | undefined },
): string {
  const toolName = shipped.tool ?? 'vault-recover-<version>.tgz'
  const lines = [
    `Encrypted copy of the vault "${opts.vaultName}" (${opts.vaultId})`,
    `Made by Vault Desktop on ${(opts.now?.() ?? new Date()).toISOString()}: ${result.blobCount} encrypted file(s), ${result.bytes} bytes, in the folder ${EXPORT_BLOBS_FOLDER}.`,
    '',
    "These files are encrypted. Nobody can open them without the vault key: enough of the guardians'",
    "kits (their words or QR codes, e.g. any 2 of 3), or the owner's recovery kit. Keep this folder, and",
    'keep it apart from the kits.',
    '',
    'To get the files back:',
    '',
    '1. With Vault Desktop: open Recovery, choose "I have the encrypted files on this computer", give',
    "   the path of this folder, then the guardians' kits (or the owner kit) and an empty folder for the",
    '   recovered files.',
    '',
    '2. Without the app, with Node.js 20 or later (https://nodejs.org) and the recovery tool:',
    `     npx ./${toolName} --share-words "<guardian 1's words>" --share-words "<guardian 2's words>" \\`,
    `       --out ./recovered ./${EXPORT_BLOBS_FOLDER}`,
    `   Run "npx ./${toolName} --help" for every option (QR photos, the owner kit).`,
    '',
    ...(shipped.pageSha256
      ? [
          `3. With only a web browser (nothing to install): open ${RECOVERY_PAGE_FILE} from this folder in`,
          '   Chrome, Edge, Firefox or Safari and follow it. First check that it is the genuine page: its',
          '   SHA-256 must be, all 64 characters alike,',
          `     ${shipped.pageSha256}`,
          "   the value the guardians' kits print (kits printed by another version of the app show that",
          `   version's value). ${RECOVERY_PAGE_FILE}.sha256 holds it for "sha256sum -c"; RECOVERY.md says`,
          '   how to compute it on each system.',
          '',
        ]
      : []),
    'RECOVERY.md explains recovery step by step; FORMAT.md describes the encryption exactly, so that the',
    'files can be opened even if every program named here is gone.',
  ]
  const missing: string[] = []
  if (result.missing.includes('recovery-tool'))
    missing.push(
      '- The recovery tool (vault-recover-<version>.tgz) was not available to the app that made this copy.',
      '  Get it from the Vault Desktop project (https://github.com/vault-desktop/vault-desktop: its release',
      '  downloads, or build it from the source with "npm ci && npm run pack:recovery", which writes',
      '  out/recovery-package/vault-recover-<version>.tgz) and put it in this folder.',
    )
  if (result.missing.includes('recovery-page'))
    missing.push(
      `- The recovery page (${RECOVERY_PAGE_FILE}), for recovering with only a web browser, was not available`,
      "  to the app that made this copy. The recovery tool's package carries it; a Vault Service shows it",
      '  at /recover; or build it from the Vault Desktop project with "npm ci && npm run build:recovery-page".',
    )
  if (result.missing.includes('recovery-guide') || result.missing.includes('format-spec'))
    missing.push(
      `- ${[result.missing.includes('recovery-guide') ? 'RECOVERY.md' : '', result.missing.includes('format-spec') ? 'FORMAT.md' : ''].filter(Boolean).join(' and ')} could not be included: both are in the docs folder of the`,
      '  Vault Desktop project (https://github.com/vault-desktop/vault-desktop).',
    )
  if (missing.length > 0) lines.push('', 'Not in this folder, and where to get it:', ...missing)
  return `${lines.join('\n')}\n`
}

/** Exports the vault's encrypted files and what an heir needs to open them into an empty folder. */
export async function exportEncryptedCopy(opts: EncryptedExportOptions): Promise<EncryptedExportResult> {
  const { created } = await emptyFolder(opts.folder)
  const folder = await outputRoot(opts.folder)
  const assets = await opts.source.listAllAssets(opts.vaultId)
  const names = exportNames(opts.vaultId, assets)
  const totalBytes = assets.reduce((sum, a) => sum + a.sizeBytes, 0)
  const blobsDir = join(folder, EXPORT_BLOBS_FOLDER)
  try {
    await makeConfinedFolders(folder, blobsDir)
    let doneBytes = 0
    for (const [i, asset] of assets.entries()) {
      const report = () =>
        opts.onProgress?.({ fileNumber: i + 1, fileCount: assets.length, doneBytes, totalBytes })
      report()
      await exportBlob(opts, asset, join(blobsDir, names[i]!), (n) => {
        doneBytes += n
        report()
      })
    }
    const missing: EncryptedExportResult['missing'] = []
    const page = await copyPage(opts.materials.recoveryPage, folder)
    if (!page) missing.push('recovery-page')
    // The guide beside the page names that page's SHA-256, as the tool's packed copy does.
    const guide = (text: string) => (page ? guideNamingPage(text, page.sha256) : text)
    if (!(await copyMaterial(opts.materials.recoveryGuide, folder, 'RECOVERY.md', guide)))
      missing.push('recovery-guide')
    if (!(await copyMaterial(opts.materials.formatSpec, folder, 'FORMAT.md'))) missing.push('format-spec')
    const toolName = opts.materials.recoveryTool ? basename(opts.materials.recoveryTool) : undefined
    const hasTool =
      toolName !== undefined && (await copyMaterial(opts.materials.recoveryTool, folder, toolName))
    if (!hasTool) missing.push('recovery-tool')
    const result = { blobCount: assets.length, bytes: totalBytes, missing }
    const temp = join(folder, localTempName())
    const text = readme(opts, result, { tool: hasTool ? toolName : undefined, pageSha256: page?.sha256 })
    await writeFile(temp, text, { flag: 'wx', mode: 0o644 })
    await rename(temp, join(folder, EXPORT_README))
    return { folder, ...result }
  } catch (error) {
    // Nothing half-made stays behind: what this export wrote goes, a folder the owner made stays.
    if (created) await rm(folder, { recursive: true, force: true })
    else
      for (const entry of await readdir(folder))
        await rm(join(folder, entry), { recursive: true, force: true })
    throw error
  }
}

/**
 * Where this app finds what it ships beside the blobs: RECOVERY.md and FORMAT.md in a docs folder, the
 * recovery page (recovery-page-digest.ts) and the packed tool (out/recovery-package, or recovery-package
 * in the app's resources: electron-builder.yml), looked for upward from each start folder (the built
 * app's own folder, a packaged app's resources). Whatever is not found is left out
 * and the README says where to get it.
 */
export async function findRecoveryMaterials(startDirs: readonly string[]): Promise<RecoveryMaterials> {
  const found: RecoveryMaterials = {}
  const isFile = (path: string) =>
    stat(path)
      .then((s) => s.isFile())
      .catch(() => false)
  const toolIn = async (dir: string) => {
    const names = await readdir(dir).catch(() => [] as string[])
    const tool = names
      .filter((n) => /^vault-recover-\d+\.\d+\.\d+.*\.tgz$/.test(n))
      .sort()
      .at(-1)
    return tool ? join(dir, tool) : undefined
  }
  for (const start of startDirs) {
    let dir = start
    for (let up = 0; up < 6; up++) {
      if (!found.recoveryGuide && (await isFile(join(dir, 'docs/RECOVERY.md'))))
        found.recoveryGuide = join(dir, 'docs/RECOVERY.md')
      if (!found.formatSpec && (await isFile(join(dir, 'docs/FORMAT.md'))))
        found.formatSpec = join(dir, 'docs/FORMAT.md')
      found.recoveryTool ??=
        (await toolIn(join(dir, 'out/recovery-package'))) ??
        (await toolIn(join(dir, 'recovery-package'))) ??
        (await toolIn(dir))
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  const page = await findShippedRecoveryPage(startDirs)
  if (page) found.recoveryPage = page
  return found
}
