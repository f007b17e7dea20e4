// Splitting the vault key among guardians and putting it back together, with every check a person
// needs: same vault, same split, no duplicates, enough shares, and a key that proves itself right.
import { combine, split } from 'shamir-secret-sharing'
import { SSS_PRESET_SHAPE, type SssPreset } from '../../../shared/api'
import { equalBytes, toHex } from './bytes'
import { assertKeySize } from './chunked-format'
import { randomBytes } from './chunked-stream'
import { ENVELOPE_VERSION, encodeVaultId, type GuardianShare, SPLIT_ID_SIZE } from './share-envelope'
import { ShareInputError } from './share-input-error'
import { keyCheckValue, vaultFingerprint } from './vault-key'

/** A fresh random polynomial and split id every time: re-splitting invalidates no old share silently. */
export async function splitVaultKey(
  vaultKey: Uint8Array,
  vaultId: string,
  preset: SssPreset,
): Promise<GuardianShare[]> {
  assertKeySize(vaultKey, 'vault key')
  encodeVaultId(vaultId) // fails now, not when the words are printed, if the id cannot be carried
  const shape = SSS_PRESET_SHAPE[preset]
  if (!shape) throw new RangeError(`Unknown preset '${preset}': use 'standard' or 'enhanced'.`)
  const { threshold, shares: shareCount } = shape
  // shamir-secret-sharing rejects Node Buffers: hand it a plain Uint8Array.
  const shares = await split(new Uint8Array(vaultKey), shareCount, threshold)
  const splitId = toHex(randomBytes(SPLIT_ID_SIZE))
  const fingerprint = vaultFingerprint(vaultKey)
  const keyCheck = keyCheckValue(vaultKey)
  return shares.map((share, i) => ({
    kind: 'guardian-share',
    version: ENVELOPE_VERSION,
    splitId,
    threshold,
    shareCount,
    shareIndex: i + 1,
    fingerprint,
    keyCheck,
    vaultId,
    share,
  }))
}

function* subsets<T>(items: T[], size: number, start = 0, picked: T[] = []): Generator<T[]> {
  if (picked.length === size) {
    yield picked
    return
  }
  for (let i = start; i <= items.length - (size - picked.length); i++)
    yield* subsets(items, size, i + 1, [...picked, items[i]!])
}

async function tryCombine(shares: GuardianShare[]): Promise<Uint8Array | null> {
  const first = shares[0]!
  try {
    const key = await combine(shares.map((s) => new Uint8Array(s.share)))
    if (!equalBytes(keyCheckValue(key), first.keyCheck) || vaultFingerprint(key) !== first.fingerprint)
      return null
    return key
  } catch {
    return null
  }
}

export async function combineShares(
  shares: GuardianShare[],
): Promise<{ vaultKey: Uint8Array; vaultId: string }> {
  if (shares.length === 0) {
    throw new ShareInputError(
      'too-few-shares',
      'No guardian shares were given. Enter the words (or scan the QR codes) from the guardians’ kits.',
    )
  }
  const first = shares[0]!
  for (const s of shares) {
    if (s.fingerprint !== first.fingerprint || s.vaultId !== first.vaultId) {
      throw new ShareInputError(
        'different-vaults',
        `These shares belong to different vaults (fingerprints ${first.fingerprint} and ${s.fingerprint}). Use only kits that show the same vault fingerprint.`,
      )
    }
  }
  for (const s of shares) {
    if (s.splitId !== first.splitId) {
      throw new ShareInputError(
        'different-splits',
        `These shares come from different sets for the same vault (set ${first.splitId} and set ${s.splitId}); the owner re-made the shares at some point, and old and new shares do not fit together. Use shares whose kits show the same set id.`,
      )
    }
  }
  const seen = new Set<number>()
  for (const s of shares) {
    if (seen.has(s.shareIndex)) {
      throw new ShareInputError(
        'duplicate-share',
        `Share ${s.shareIndex} of ${s.shareCount} was entered twice; each guardian's share counts once. Add a share from a different guardian instead.`,
      )
    }
    seen.add(s.shareIndex)
  }
  if (shares.length < first.threshold) {
    const missing = first.threshold - shares.length
    throw new ShareInputError(
      'too-few-shares',
      `${first.threshold} of ${first.shareCount} needed; you entered ${shares.length}. Any ${first.threshold} of the ${first.shareCount} guardians' shares unlock the vault: ask ${missing === 1 ? 'one more guardian' : `${missing} more guardians`} for their share.`,
    )
  }
  const all = await tryCombine(shares)
  if (all) return { vaultKey: all, vaultId: first.vaultId }
  // With more shares than needed, one bad share can be found and left out.
  if (shares.length > first.threshold) {
    for (const subset of subsets(shares, first.threshold)) {
      const key = await tryCombine(subset)
      if (key) return { vaultKey: key, vaultId: first.vaultId }
    }
  }
  throw new ShareInputError(
    'key-check-failed',
    'The shares fit together but the key they produce fails its check, so at least one share is damaged or was altered. Try a different combination of guardians’ shares.',
  )
}
