// Reading the kits an heir types, photographs or shows to the camera, with the app's leniency (the
// format's word reader: capital letters, extra spaces, a QR code's text) and its sentences (the app's
// Recovery screen: core/ipc/recovery-handlers.ts checkShare, renderer recovery.*). Guardian kits are
// combined with the format's own rules (a kit that does not read, or of another set, is left out and
// said when the others are enough); the owner's recovery kit opens the vault alone.
import { AppError } from '../shared/app-error'
import { combineShareWords, decodeKitWords, decodeOwnerKitWords, ShareInputError } from '../vault-format'
import type { PageText } from './page-text'

/** A kit as the check read it. */
export type KitCheck =
  | { ok: false; message: string; detail?: string }
  | {
      ok: true
      kind: 'guardian'
      message: string
      splitId: string
      shareIndex: number
      threshold: number
      shares: number
      vaultId: string
    }
  | { ok: true; kind: 'owner'; message: string; vaultId: string }

/** Reads one kit's text; its problem in the page's words, with the format's own sentence as detail. */
export function checkKit(text: string, t: PageText): KitCheck {
  try {
    const kit = decodeKitWords(text)
    if (kit.kind === 'owner-key')
      return { ok: true, kind: 'owner', message: t.ownerKitRead(kit.vaultId), vaultId: kit.vaultId }
    if (kit.kind === 'practice-share') return { ok: false, message: t.practiceKit }
    return {
      ok: true,
      kind: 'guardian',
      message: t.kitRead(kit.shareIndex, kit.shareCount, kit.fingerprint, kit.splitId),
      splitId: kit.splitId,
      shareIndex: kit.shareIndex,
      threshold: kit.threshold,
      shares: kit.shareCount,
      vaultId: kit.vaultId,
    }
  } catch (error) {
    if (error instanceof ShareInputError) return { ok: false, message: t.kitNotRead, detail: error.message }
    throw error
  }
}

/** What the kits read so far allow, in the Recovery screen's words. */
export function kitsSummary(
  checks: readonly KitCheck[],
  t: PageText,
): { enough: boolean; note: string; warning?: string } {
  const good = checks.filter((c) => c.ok)
  const owner = good.find((c) => c.kind === 'owner')
  if (owner) return { enough: true, note: owner.message }
  const guardians = good.filter(
    (c): c is Extract<KitCheck, { kind: 'guardian' }> => c.ok && c.kind === 'guardian',
  )
  if (guardians.length === 0) return { enough: false, note: t.noKits }
  const perSet = new Map<string, number>()
  for (const kit of guardians) perSet.set(kit.splitId, (perSet.get(kit.splitId) ?? 0) + 1)
  const first = guardians[0]!
  const enough = [...perSet.values()].some((n) => n >= first.threshold)
  const note = enough
    ? t.kitsEnough(guardians.length, first.threshold, first.shares)
    : t.kitsShort(guardians.length, first.threshold, first.shares)
  if (perSet.size > 1) return { enough, note, warning: enough ? t.mixedSetsEnough : t.mixedSetsShort }
  return { enough, note }
}

/** The vault key, from the owner's kit or the guardians' kits combined. */
export interface PageKey {
  vaultKey: Uint8Array
  vaultId: string
  /** Kits left out because the others were enough, with why (the format's words). */
  setAside: string[]
}

/** A kit problem the heir can fix, in the format's words (English, as the app shows them). */
export class KitError extends AppError {
  override readonly name = 'KitError'
  constructor(message: string) {
    super({ code: 'RECOVERY_INPUT_INVALID', userMessage: message })
  }
}

export async function keyFromKits(texts: readonly string[]): Promise<PageKey> {
  for (const text of texts) {
    try {
      const owner = decodeOwnerKitWords(text)
      return { vaultKey: owner.vaultKey, vaultId: owner.vaultId, setAside: [] }
    } catch {
      // Not the owner's kit: a guardian's, combined below.
    }
  }
  try {
    const combined = await combineShareWords([...texts])
    return {
      vaultKey: combined.vaultKey,
      vaultId: combined.vaultId,
      setAside: combined.ignored.map((kit) => kit.reason),
    }
  } catch (error) {
    if (error instanceof ShareInputError) throw new KitError(error.message)
    throw error
  }
}
