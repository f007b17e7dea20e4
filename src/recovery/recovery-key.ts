// Turning what heirs hold (guardians' words, text files, QR images, or the owner's kit) into the vault
// key and vault id. Works offline, needs neither the service nor Electron.
import { readFile } from 'node:fs/promises'
import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import { AppError } from '../shared/app-error'
import { combineShareWords, decodeOwnerKitWords, ShareInputError, vaultFingerprint } from '../vault-format'

export interface RecoveryKeySources {
  /** Each entry: one guardian's words, as typed. */
  shareWords?: string[]
  /** Text files, each holding one guardian's words. */
  shareFiles?: string[]
  /** PNG images of guardians' QR codes. */
  shareQrImages?: string[]
  /** The owner's kit: words, a text file, or a PNG of its QR code. */
  ownerKitWords?: string
  ownerKitFile?: string
  ownerKitQrImage?: string
  /** Overrides nothing: when given, it must match the vault id inside the words. */
  vaultId?: string
}

export interface RecoveredKey {
  vaultKey: Uint8Array
  vaultId: string
  fingerprint: string
  /** Where the key came from, for the report. */
  source: 'guardian-shares' | 'owner-kit'
  /** Kits left out because the others were enough, each with its reason. */
  kitsSetAside?: string[]
}

/** A problem with a named input (file, image, Nth words), so the person knows which one to fix. */
export class RecoveryInputError extends AppError {
  override readonly name = 'RecoveryInputError'
  constructor(userMessage: string) {
    super({ code: 'RECOVERY_INPUT_INVALID', userMessage })
  }
}

function labelled<T>(label: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof ShareInputError) throw new RecoveryInputError(`${label}: ${error.message}`)
    throw error
  }
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw new RecoveryInputError(
      `Cannot read ${what} '${path}': ${(error as Error).message}. Check the path.`,
    )
  }
}

/** Reads the words out of a QR code in a PNG image. */
export async function readQrImage(path: string): Promise<string> {
  let png: PNG
  try {
    png = PNG.sync.read(await readFile(path))
  } catch (error) {
    throw new RecoveryInputError(
      `Cannot read '${path}' as a PNG image (${(error as Error).message}). Save or convert the photo or scan as PNG, or type the words instead.`,
    )
  }
  const found = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  )
  if (!found) {
    throw new RecoveryInputError(
      `No QR code could be read in '${path}'. Use a sharper, straight-on picture where the whole code is visible, or type the words instead.`,
    )
  }
  return found.data
}

export async function recoverVaultKey(sources: RecoveryKeySources): Promise<RecoveredKey> {
  const owner = [sources.ownerKitWords, sources.ownerKitFile, sources.ownerKitQrImage].filter(
    (s) => s !== undefined,
  )
  const shareCount =
    (sources.shareWords?.length ?? 0) +
    (sources.shareFiles?.length ?? 0) +
    (sources.shareQrImages?.length ?? 0)
  if (owner.length > 1)
    throw new RecoveryInputError('Give the owner kit once (as words, a file or a QR image).')
  if (owner.length === 0 && shareCount === 0) {
    throw new RecoveryInputError(
      "No key material given. Provide guardians' shares (words, text files or QR images) or the owner's recovery kit.",
    )
  }

  let result: RecoveredKey
  if (owner.length === 1) {
    let text: string
    let label: string
    if (sources.ownerKitWords !== undefined) {
      text = sources.ownerKitWords
      label = 'Owner kit words'
    } else if (sources.ownerKitFile !== undefined) {
      text = await readText(sources.ownerKitFile, 'owner kit file')
      label = `Owner kit file '${sources.ownerKitFile}'`
    } else {
      text = await readQrImage(sources.ownerKitQrImage!)
      label = `Owner kit QR image '${sources.ownerKitQrImage}'`
    }
    const kit = labelled(label, () => decodeOwnerKitWords(text))
    result = {
      vaultKey: kit.vaultKey,
      vaultId: kit.vaultId,
      fingerprint: vaultFingerprint(kit.vaultKey),
      source: 'owner-kit',
    }
  } else {
    // Kits are read as text and combined together: one that does not read, or belongs to another
    // vault or set, is left out (and said) when the others are enough.
    const kits: { label: string; text: string }[] = []
    sources.shareWords?.forEach((words, i) => {
      kits.push({ label: `Share words #${i + 1}`, text: words })
    })
    for (const file of sources.shareFiles ?? []) {
      kits.push({ label: `Share file '${file}'`, text: await readText(file, 'share file') })
    }
    for (const image of sources.shareQrImages ?? []) {
      kits.push({ label: `QR image '${image}'`, text: await readQrImage(image) })
    }
    // "Kit N" in the combiner's words becomes the input the person gave, so they know which to fix.
    const named = (text: string) =>
      text.replace(/^Kit (\d+)/, (whole, n: string) => kits[Number(n) - 1]?.label ?? whole)
    const combined = await combineShareWords(kits.map((k) => k.text)).catch((error: unknown) => {
      if (error instanceof ShareInputError) throw new RecoveryInputError(named(error.message))
      throw error
    })
    result = {
      vaultKey: combined.vaultKey,
      vaultId: combined.vaultId,
      fingerprint: vaultFingerprint(combined.vaultKey),
      source: 'guardian-shares',
      kitsSetAside: combined.ignored.map((kit) => named(kit.reason)),
    }
  }

  if (sources.vaultId !== undefined && sources.vaultId !== result.vaultId) {
    throw new RecoveryInputError(
      `The recovery words belong to vault '${result.vaultId}', not '${sources.vaultId}'. Leave out --vault (the words already name the vault) or use the kits of vault '${sources.vaultId}'.`,
    )
  }
  return result
}
