// Recovery envelopes as words from the BIP-39 English list (11 bits per word, big-endian, the last word
// zero-padded). Reading is forgiving about case, spacing, numbering and 4-letter abbreviations, and
// precise about mistakes: it names the word, suggests the likely one, and explains what to do.
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { ShareInputError } from './format-errors'
import {
  checksumMatches,
  decodeEnvelope,
  encodeEnvelope,
  envelopeLength,
  type GuardianShare,
  type KitEnvelope,
  type OwnerKey,
  type PracticeShare,
  type RecoveryEnvelope,
} from './share-envelope'

const WORD_INDEX = new Map(wordlist.map((word, i) => [word, i]))

export function bytesToWordIndices(bytes: Uint8Array): number[] {
  const indices: number[] = []
  let acc = 0
  let bits = 0
  for (const byte of bytes) {
    acc = ((acc << 8) | byte) & 0xfffff
    bits += 8
    while (bits >= 11) {
      bits -= 11
      indices.push((acc >> bits) & 0x7ff)
    }
  }
  if (bits > 0) indices.push((acc << (11 - bits)) & 0x7ff)
  return indices
}

/** floor(11 * words / 8) bytes, plus the leftover padding bits (which must be zero). */
export function wordIndicesToBytes(indices: number[]): { bytes: Uint8Array; padding: number } {
  const bytes = new Uint8Array(Math.floor((indices.length * 11) / 8))
  let acc = 0
  let bits = 0
  let o = 0
  for (const index of indices) {
    acc = ((acc << 11) | index) & 0x7ffff
    bits += 11
    while (bits >= 8 && o < bytes.length) {
      bits -= 8
      bytes[o++] = (acc >> bits) & 0xff
    }
  }
  return { bytes, padding: acc & ((1 << bits) - 1) }
}

export function wordsFor(envelope: KitEnvelope): string[] {
  return bytesToWordIndices(encodeEnvelope(envelope)).map((i) => wordlist[i]!)
}

export function encodeShareWords(share: GuardianShare): string {
  return wordsFor(share).join(' ')
}

export function encodePracticeShareWords(share: PracticeShare): string {
  return wordsFor(share).join(' ')
}

export function encodeOwnerKitWords(owner: { vaultKey: Uint8Array; vaultId: string }): string {
  return wordsFor({ kind: 'owner-key', version: 1, vaultKey: owner.vaultKey, vaultId: owner.vaultId }).join(
    ' ',
  )
}

/**
 * Words from free text, exactly as FORMAT.md 5.2 lists: lower-cased, cut at whitespace, commas and
 * semicolons; a piece with a letter keeps what lies from its first letter to its last (so numbering,
 * quotes and brackets around a word go); a piece without letters is dropped (numbers, "(12)", "#12",
 * "12:", dashes, bullets) unless it holds a "?", which stands for a word that could not be read and
 * is kept so the message can name its position. Letters inside a word stay, to be quoted back.
 */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[\s\u0085,;]+/) // \s is Unicode White_Space but U+0085, and U+FEFF
    .map((piece) => (/\p{L}/u.test(piece) ? piece.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '') : piece))
    .filter((token) => /\p{L}/u.test(token) || token.includes('?'))
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

function closestWords(token: string): string[] {
  let best = Number.POSITIVE_INFINITY
  let words: string[] = []
  for (const word of wordlist) {
    const d = editDistance(token, word)
    if (d < best) {
      best = d
      words = [word]
    } else if (d === best) {
      words.push(word)
    }
  }
  return best <= 2 ? words.slice(0, 3) : []
}

function resolveWord(token: string, position: number): number {
  const exact = WORD_INDEX.get(token)
  if (exact !== undefined) return exact
  if (!/\p{L}/u.test(token)) {
    throw new ShareInputError(
      'unknown-word',
      `Word ${position} is not filled in ('${token}'). Copy it from the kit; if it cannot be read there, leave this kit out: other guardians' kits may be enough.`,
      position,
    )
  }
  // BIP-39 words are unique in their first four letters, so an abbreviation is unambiguous.
  if (token.length >= 4) {
    const matches = wordlist.filter((word) => word.startsWith(token))
    if (matches.length === 1) return WORD_INDEX.get(matches[0]!)!
  }
  const guesses = closestWords(token)
  const hint = guesses.length > 0 ? ` Did you mean ${guesses.map((g) => `'${g}'`).join(' or ')}?` : ''
  throw new ShareInputError(
    'unknown-word',
    `Word ${position}, '${token}', is not in the word list — check the spelling.${hint}`,
    position,
  )
}

function parses(indices: number[]): boolean {
  const { bytes, padding } = wordIndicesToBytes(indices)
  const length = envelopeLength(bytes)
  return (
    padding === 0 &&
    length !== null &&
    Math.ceil((length * 8) / 11) === indices.length &&
    checksumMatches(bytes)
  )
}

/** One word replaced or two neighbours swapped: the usual typing slips. */
function findCorrection(indices: number[], words: string[]): string | null {
  const fixes: string[] = []
  for (let p = 0; p + 1 < indices.length && fixes.length < 2; p++) {
    const swapped = indices.slice()
    swapped[p] = indices[p + 1]!
    swapped[p + 1] = indices[p]!
    if (indices[p] !== indices[p + 1] && parses(swapped)) {
      fixes.push(`words ${p + 1} and ${p + 2} ('${words[p]}', '${words[p + 1]}') look swapped`)
    }
  }
  for (let p = 0; p < indices.length && fixes.length < 2; p++) {
    const candidate = indices.slice()
    for (let w = 0; w < wordlist.length; w++) {
      if (w === indices[p]) continue
      candidate[p] = w
      if (parses(candidate)) fixes.push(`word ${p + 1}, '${words[p]}', should probably be '${wordlist[w]}'`)
    }
  }
  return fixes.length === 1 ? fixes[0]! : null
}

/** Any kit's words, real or practice; callers that need one kind use the functions below. */
export function decodeKitWords(text: string): KitEnvelope {
  const tokens = tokenize(text)
  if (tokens.length === 0) {
    throw new ShareInputError(
      'empty',
      /\d/.test(text)
        ? 'Only numbers were entered, no words. Type the words printed on the kit, in order (the numbers beside them only count their places).'
        : 'No words were entered. Type the words from the kit, in order.',
    )
  }
  const indices = tokens.map((token, i) => resolveWord(token, i + 1))
  const words = indices.map((i) => wordlist[i]!)
  const { bytes, padding } = wordIndicesToBytes(indices)
  const length = envelopeLength(bytes)
  const expected = length === null ? null : Math.ceil((length * 8) / 11)
  if (expected !== tokens.length) {
    const fixed = findCorrection(indices, words)
    if (fixed) {
      throw new ShareInputError(
        'checksum',
        `The words do not check out: ${fixed}. Compare them with the kit.`,
      )
    }
    const count =
      expected === null || expected < 20 || expected > 200
        ? `You entered ${tokens.length} words; that is not the length of a share or key kit.`
        : `You entered ${tokens.length} words, but these should be ${expected}.`
    throw new ShareInputError(
      'word-count',
      `${count} Check that no word or line was skipped or entered twice, and that the first words are right.`,
    )
  }
  if (padding !== 0 || !checksumMatches(bytes)) {
    const fixed = findCorrection(indices, words)
    throw new ShareInputError(
      'checksum',
      fixed
        ? `The words do not check out: ${fixed}. Compare them with the kit.`
        : 'The words do not check out: at least one is mistyped or out of order. Compare each word with the kit, in order.',
    )
  }
  return decodeEnvelope(bytes.subarray(0, length!))
}

const practiceKitRefusal = (share: PracticeShare) =>
  new ShareInputError(
    'practice-kit',
    `This is a practice kit from a rehearsal (practice share ${share.shareIndex} of ${share.shareCount}): it cannot open the vault. Ask the guardian for their real kit.`,
  )

/** A real kit's words (a guardian share or the owner key); a practice kit is refused. */
export function decodeRecoveryWords(text: string): RecoveryEnvelope {
  const envelope = decodeKitWords(text)
  if (envelope.kind === 'practice-share') throw practiceKitRefusal(envelope)
  return envelope
}

export function decodeShareWords(text: string): GuardianShare {
  const envelope = decodeRecoveryWords(text)
  if (envelope.kind !== 'guardian-share') {
    throw new ShareInputError(
      'wrong-kind',
      "These words are the owner's recovery kit (the vault key itself), not a guardian's share. Use them as the owner kit: on their own they are enough to recover the vault.",
    )
  }
  return envelope
}

/** A rehearsal kit's words; a real guardian kit or owner kit is refused: it never goes into a practice. */
export function decodePracticeShareWords(text: string): PracticeShare {
  const envelope = decodeKitWords(text)
  if (envelope.kind === 'practice-share') return envelope
  throw new ShareInputError(
    'real-kit',
    envelope.kind === 'guardian-share'
      ? `This is a real guardian kit (share ${envelope.shareIndex} of ${envelope.shareCount}): never use it for a practice. Give it back to the guardian to keep safe, and ask them for the practice kit from the rehearsal e-mail.`
      : "This is the owner's real recovery kit (the vault key itself): never use it for a practice. Put it back somewhere safe, and use the guardians' practice kits instead.",
  )
}

export function decodeOwnerKitWords(text: string): OwnerKey {
  const envelope = decodeRecoveryWords(text)
  if (envelope.kind !== 'owner-key') {
    throw new ShareInputError(
      'wrong-kind',
      `These words are guardian share ${envelope.shareIndex} of ${envelope.shareCount}, not the owner's recovery kit. Combine them with other guardians' shares instead.`,
    )
  }
  return envelope
}
