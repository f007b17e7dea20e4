// Splitting the vault key among guardians and putting it back together, with every check a person
// needs: same vault, same split, no duplicates, enough shares, and a key that proves itself right.
// A rehearsal's practice key is split and combined the same way, as practice shares that expire;
// real and practice kits never mix (FORMAT.md 5.1, 5.4).
import { combine, split } from 'shamir-secret-sharing'
import { equalBytes, randomBytes, toHex } from './bytes'
import { assertKeySize } from './chunked-format'
import { ShareInputError } from './format-errors'
import {
  dayNumber,
  ENVELOPE_VERSION,
  encodeVaultId,
  type GuardianShare,
  type PracticeShare,
  SHAMIR_SHARE_SIZE,
  SPLIT_ID_SIZE,
  utcDay,
} from './share-envelope'
import { decodePracticeShareWords, decodeShareWords } from './share-words'
import { keyCheckValue, vaultFingerprint } from './vault-key'

/** How many shares to make, and how many of them put the key back together (the vault's preset). */
export interface SplitShape {
  threshold: number
  shares: number
}

/** A fresh random polynomial and split id every time: re-splitting invalidates no old share silently. */
export async function splitVaultKey(
  vaultKey: Uint8Array,
  vaultId: string,
  shape: SplitShape,
): Promise<GuardianShare[]> {
  return (await splitKey(vaultKey, vaultId, shape)).map((fields) => ({ kind: 'guardian-share', ...fields }))
}

/**
 * Splits a rehearsal's throwaway practice key (a fresh generateVaultKey(), never the vault key) with
 * the vault's preset into practice shares that carry the vault id and work until `expiresOn`
 * ("YYYY-MM-DD", UTC, inclusive).
 */
export async function splitPracticeKey(
  practiceKey: Uint8Array,
  vaultId: string,
  shape: SplitShape,
  expiresOn: string,
): Promise<PracticeShare[]> {
  dayNumber(expiresOn) // a bad date fails here, not when the kits are printed
  return (await splitKey(practiceKey, vaultId, shape)).map((fields) => ({
    kind: 'practice-share',
    ...fields,
    expiresOn,
  }))
}

async function splitKey(
  vaultKey: Uint8Array,
  vaultId: string,
  shape: SplitShape,
): Promise<Omit<GuardianShare, 'kind'>[]> {
  assertKeySize(vaultKey, 'vault key')
  encodeVaultId(vaultId) // fails now, not when the words are printed, if the id cannot be carried
  const { threshold, shares: shareCount } = shape
  if (
    !Number.isInteger(threshold) ||
    !Number.isInteger(shareCount) ||
    threshold < 2 ||
    shareCount < threshold ||
    shareCount > 255
  ) {
    throw new RangeError(
      `Cannot split into ${shareCount} shares with a threshold of ${threshold}: use 2 to 255 shares and a threshold from 2 to the share count.`,
    )
  }
  // shamir-secret-sharing rejects Node Buffers: hand it a plain Uint8Array.
  const shares = await split(new Uint8Array(vaultKey), shareCount, threshold)
  const splitId = toHex(randomBytes(SPLIT_ID_SIZE))
  const fingerprint = vaultFingerprint(vaultKey)
  const keyCheck = keyCheckValue(vaultKey)
  return shares.map((share, i) => ({
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

type AnyShare = GuardianShare | PracticeShare

async function tryCombine(shares: AnyShare[]): Promise<Uint8Array | null> {
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

export interface CombinedShares {
  vaultKey: Uint8Array
  vaultId: string
  /** Input positions (0-based) of the kits that agree on the key, the ones combined among them. */
  used: number[]
  /** Input positions left out, each with a sentence saying why. */
  ignored: { index: number; reason: string }[]
}

/** Combinations tried at most (C(10, 5) = 252; real recoveries need a handful). */
const MAX_TRIALS = 20_000

interface Entry {
  index: number
  share: AnyShare
}

const kitName = (e: Entry) =>
  `Kit ${e.index + 1} (${e.share.kind === 'practice-share' ? 'practice ' : ''}share ${e.share.shareIndex} of ${e.share.shareCount})`

/** Everything a split's kits have in common: kits that differ here never combine. */
function setKey(s: AnyShare): string {
  const expiry = s.kind === 'practice-share' ? s.expiresOn : ''
  return [s.vaultId, s.fingerprint, s.splitId, s.threshold, s.shareCount, toHex(s.keyCheck), expiry].join(
    '\u0000',
  )
}

/** The share's x-coordinate: its last byte (FORMAT.md 4). */
const xOf = (s: AnyShare) => s.share[SHAMIR_SHARE_SIZE - 1]!

/** The kit of `among` with this kit's share number or x-coordinate: two such kits never combine. */
const clash = (entry: Entry, among: Entry[]) =>
  among.find(
    (other) =>
      other !== entry &&
      (other.share.shareIndex === entry.share.shareIndex || xOf(other.share) === xOf(entry.share)),
  )

const allDistinct = (entries: Entry[]) => entries.every((e) => !clash(e, entries))

/**
 * Rebuilds the vault key from guardians' shares, given in any number and order (FORMAT.md 5.4):
 * exact duplicates count once; kits are grouped by vault, fingerprint and split; in each group with
 * enough kits, all of them are combined, then every subset of threshold size, and the first key
 * that passes its key-check value and fingerprint wins. Kits of other vaults or splits, duplicates
 * and kits that do not fit are reported in `ignored`. Throws ShareInputError only when no group
 * gives a key.
 */
export function combineShares(shares: GuardianShare[]): Promise<CombinedShares> {
  return combineEntries(shares.map((share, index) => ({ index, share })))
}

/** What combining a rehearsal's practice kits gives: the practice key, never the vault key. */
export interface CombinedPracticeShares {
  practiceKey: Uint8Array
  vaultId: string
  /** The last day (UTC) on which the kits combined work. */
  expiresOn: string
  used: number[]
  ignored: { index: number; reason: string }[]
}

/** Options of practice combining: `now` decides which kits have expired (default: the clock). */
export interface PracticeCombineOptions {
  now?: Date
}

/**
 * combineShares for a rehearsal's practice shares, with the same leniency and checks; a practice
 * kit past its last day is set aside like an unreadable kit (named when the rest are not enough).
 */
export function combinePracticeShares(
  shares: PracticeShare[],
  options: PracticeCombineOptions = {},
): Promise<CombinedPracticeShares> {
  const read: Entry[] = []
  const unusable: Unusable[] = []
  shares.forEach((share, index) => {
    const expired = expiry(share, options)
    if (expired) unusable.push({ index, error: expired })
    else read.push({ index, share })
  })
  return combineRead(read, unusable).then(asPractice)
}

/**
 * combineShareWords for a rehearsal's practice kits. A real guardian kit or owner kit among them
 * stops the practice with its reason, even when the practice kits would suffice: a real kit in a
 * rehearsal is the very mistake a rehearsal exists to catch, and its holder must take it back.
 */
export async function combinePracticeWords(
  texts: string[],
  options: PracticeCombineOptions = {},
): Promise<CombinedPracticeShares> {
  const read: Entry[] = []
  const unusable: Unusable[] = []
  texts.forEach((text, index) => {
    try {
      const share = decodePracticeShareWords(text)
      const expired = expiry(share, options)
      if (expired) throw expired
      read.push({ index, share })
    } catch (error) {
      if (!(error instanceof ShareInputError)) throw error
      if (error.reason === 'real-kit')
        throw new ShareInputError('real-kit', `Kit ${index + 1}: ${error.message}`)
      unusable.push({ index, error })
    }
  })
  return asPractice(await combineRead(read, unusable))
}

function expiry(share: PracticeShare, options: PracticeCombineOptions): ShareInputError | null {
  if (utcDay(options.now ?? new Date()) <= share.expiresOn) return null
  return new ShareInputError(
    'practice-expired',
    `This practice kit expired after ${share.expiresOn}: its rehearsal is over. Ask the owner to start a new rehearsal if you want to practise again.`,
  )
}

function asPractice(combined: CombinedShares & { expiresOn?: string }): CombinedPracticeShares {
  const { vaultKey, expiresOn, ...rest } = combined
  return { practiceKey: vaultKey, expiresOn: expiresOn!, ...rest }
}

async function combineEntries(entries: Entry[]): Promise<CombinedShares & { expiresOn?: string }> {
  if (entries.length === 0) {
    throw new ShareInputError(
      'too-few-shares',
      'No guardian shares were given. Enter the words (or scan the QR codes) from the guardians’ kits.',
    )
  }
  const ignored: CombinedShares['ignored'] = []
  const duplicates: Entry[] = []
  const seen = new Map<string, Entry>()
  const groups = new Map<string, Entry[]>()
  for (const entry of entries) {
    const { index, share } = entry
    const exact = `${setKey(share)}\u0000${share.shareIndex}\u0000${toHex(share.share)}`
    const earlier = seen.get(exact)
    if (earlier) {
      duplicates.push(entry)
      ignored.push({
        index,
        reason: `${kitName(entry)} is the same kit as kit ${earlier.index + 1}, entered twice; it counts once.`,
      })
      continue
    }
    seen.set(exact, entry)
    const key = setKey(share)
    groups.set(key, [...(groups.get(key) ?? []), entry])
  }

  let trials = 0
  const attempt = async (entries: Entry[]) => {
    if (++trials > MAX_TRIALS) {
      throw new ShareInputError(
        'too-many-shares',
        `Too many kits to try every combination (more than ${MAX_TRIALS}). Enter only the kits of one vault, and no more than a few beyond the number needed.`,
      )
    }
    return tryCombine(entries.map((e) => e.share))
  }

  for (const group of groups.values()) {
    const { threshold } = group[0]!.share
    if (group.length < threshold) continue
    // Kits sharing a share number or an x-coordinate are never combined together (FORMAT.md 5.4).
    let key = allDistinct(group) ? await attempt(group) : null
    let subset = group
    if (!key && group.length > threshold) {
      // With more kits than needed, bad ones can be left out.
      for (const candidate of subsets(group, threshold)) {
        if (!allDistinct(candidate)) continue
        key = await attempt(candidate)
        if (key) {
          subset = candidate
          break
        }
      }
    }
    if (!key) continue
    const used = subset.map((e) => e.index)
    for (const entry of group) {
      if (subset.includes(entry)) continue
      const twin = clash(entry, subset)
      if (twin) {
        ignored.push({
          index: entry.index,
          reason: `${kitName(entry)} has the share number or the share point of kit ${twin.index + 1} but different contents: one of the two was damaged or altered, and kit ${twin.index + 1} fits the others. The key was rebuilt without kit ${entry.index + 1}.`,
        })
        continue
      }
      // A kit on the same polynomial gives the same key in place of the subset's first kit.
      const fits = await tryCombine([...subset.slice(1), entry].map((e) => e.share))
      if (fits && equalBytes(fits, key)) used.push(entry.index)
      else
        ignored.push({
          index: entry.index,
          reason: `${kitName(entry)} does not fit the other kits of its set: its words check out but its share was damaged or altered. The key was rebuilt without it.`,
        })
    }
    const winner = group[0]!.share
    for (const other of groups.values()) {
      if (other === group) continue
      for (const entry of other) ignored.push({ index: entry.index, reason: setAside(entry, winner) })
    }
    used.sort((a, b) => a - b)
    ignored.sort((a, b) => a.index - b.index)
    const expiresOn = winner.kind === 'practice-share' ? { expiresOn: winner.expiresOn } : {}
    return { vaultKey: key, vaultId: winner.vaultId, used, ignored, ...expiresOn }
  }
  throw explainFailure(
    entries.map((e) => e.share),
    [...groups.values()],
    duplicates,
  )
}

/** Why a kit outside the winning group was left out. */
function setAside(entry: Entry, winner: AnyShare): string {
  const s = entry.share
  if (s.fingerprint !== winner.fingerprint || s.vaultId !== winner.vaultId) {
    return `${kitName(entry)} belongs to another vault (fingerprint ${s.fingerprint}, vault ${s.vaultId}), not the one recovered (fingerprint ${winner.fingerprint}).`
  }
  if (s.splitId !== winner.splitId) {
    return `${kitName(entry)} comes from another set of shares of this vault (set ${s.splitId}, not ${winner.splitId}); the owner re-made the shares at some point, and old and new shares do not fit together.`
  }
  return `${kitName(entry)} disagrees with the other kits of its set about the set's details (threshold, number of shares or key check): it was damaged or altered.`
}

/** No group gave a key: the most useful single explanation. */
function explainFailure(shares: AnyShare[], groups: Entry[][], duplicates: Entry[]): ShareInputError {
  // Enough kits, but not enough different share numbers and points among them.
  const repeated = groups.find((g) => g.length >= g[0]!.share.threshold && !hasDistinctSubset(g))
  if (repeated) {
    const entry = repeated.find((e) => clash(e, repeated))!
    const twin = clash(entry, repeated)!
    const s = repeated[0]!.share
    return new ShareInputError(
      'duplicate-share',
      `Kits ${Math.min(twin.index, entry.index) + 1} and ${Math.max(twin.index, entry.index) + 1} have the same share number or share point but different contents, so one of them was damaged or altered, and ${s.threshold} different shares are needed. Add a share from a different guardian.`,
    )
  }
  const failed = groups.find((g) => g.length >= g[0]!.share.threshold)
  if (failed) {
    return new ShareInputError(
      'key-check-failed',
      'The shares fit together but the key they produce fails its check, so at least one share is damaged or was altered. Try a different combination of guardians’ shares.',
    )
  }
  const first = shares[0]!
  const vaults = new Set(shares.map((s) => `${s.fingerprint}\u0000${s.vaultId}`))
  if (vaults.size > 1) {
    const other = shares.find((s) => s.fingerprint !== first.fingerprint || s.vaultId !== first.vaultId)!
    return new ShareInputError(
      'different-vaults',
      `These shares belong to different vaults (fingerprints ${first.fingerprint} and ${other.fingerprint}), and no vault has enough of them. Use only kits that show the same vault fingerprint. ${need(groups)}`,
    )
  }
  const splits = new Set(shares.map((s) => s.splitId))
  if (splits.size > 1) {
    const other = shares.find((s) => s.splitId !== first.splitId)!
    return new ShareInputError(
      'different-splits',
      `These shares come from different sets for the same vault (set ${first.splitId} and set ${other.splitId}); the owner re-made the shares at some point, and old and new shares do not fit together. Use shares whose kits show the same set id. ${need(groups)}`,
    )
  }
  if (duplicates.length > 0) {
    const s = duplicates[0]!.share
    return new ShareInputError(
      'duplicate-share',
      `Share ${s.shareIndex} of ${s.shareCount} was entered twice; each guardian's share counts once. Add a share from a different guardian instead.`,
    )
  }
  if (groups.length > 1) {
    return new ShareInputError(
      'key-check-failed',
      `The kits of this set disagree about the set's details (threshold, number of shares or key check), so some were damaged or altered. ${need(groups)}`,
    )
  }
  const { threshold, shareCount } = first
  const have = groups[0]!.length
  const missing = threshold - have
  return new ShareInputError(
    'too-few-shares',
    `${threshold} of ${shareCount} needed; you entered ${have}. Any ${threshold} of the ${shareCount} guardians' shares unlock the vault: ask ${missing === 1 ? 'one more guardian' : `${missing} more guardians`} for their share.`,
  )
}

/** Whether some `threshold` kits of the group have distinct share numbers and x-coordinates. */
function hasDistinctSubset(group: Entry[]): boolean {
  const { threshold } = group[0]!.share
  let tried = 0
  for (const candidate of subsets(group, threshold)) {
    if (allDistinct(candidate)) return true
    if (++tried > MAX_TRIALS) return true // too many to tell: let the combining error speak
  }
  return false
}

/** "Set 4dfbdbd5 (fingerprint BA2A-…) has 1 of the 2 needed." for each group, largest first. */
function need(groups: Entry[][]): string {
  return [...groups]
    .sort((a, b) => b.length - a.length)
    .slice(0, 3)
    .map((g) => {
      const s = g[0]!.share
      return `Set ${s.splitId} (fingerprint ${s.fingerprint}) has ${g.length} of the ${s.threshold} needed.`
    })
    .join(' ')
}

/**
 * combineShares from the kits' text (typed words or a QR code's text), in input order: a kit whose
 * words do not read is set aside with its reason when the others give the key, so a bad extra kit
 * never stops a recovery. When no key results, the error names the unreadable kit if fixing it could
 * help (a kit short, other vault or set), else the combining error.
 */
export async function combineShareWords(texts: string[]): Promise<CombinedShares> {
  const read: Entry[] = []
  const unreadable: Unusable[] = []
  texts.forEach((text, index) => {
    try {
      read.push({ index, share: decodeShareWords(text) })
    } catch (error) {
      if (!(error instanceof ShareInputError)) throw error
      unreadable.push({ index, error })
    }
  })
  const { expiresOn: _, ...combined } = await combineRead(read, unreadable)
  return combined
}

/** A kit that cannot take part (unreadable, a practice kit among real ones, expired), and why. */
interface Unusable {
  index: number
  error: ShareInputError
}

async function combineRead(
  read: Entry[],
  unreadable: Unusable[],
): Promise<CombinedShares & { expiresOn?: string }> {
  let combined: CombinedShares & { expiresOn?: string }
  try {
    combined = await combineEntries(read)
  } catch (error) {
    const first = unreadable[0]
    if (
      first &&
      error instanceof ShareInputError &&
      error.reason !== 'key-check-failed' &&
      error.reason !== 'too-many-shares'
    ) {
      throw new ShareInputError(
        first.error.reason,
        `Kit ${first.index + 1}: ${first.error.message}`,
        first.error.wordNumber,
      )
    }
    throw error
  }
  const left = unreadable.map((u) => ({
    index: u.index,
    reason:
      u.error.reason === 'practice-kit' || u.error.reason === 'practice-expired'
        ? `Kit ${u.index + 1} was left out: ${u.error.message}`
        : `Kit ${u.index + 1} cannot be read, so it was left out: ${u.error.message}`,
  }))
  return { ...combined, ignored: [...combined.ignored, ...left].sort((a, b) => a.index - b.index) }
}
