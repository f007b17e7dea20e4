import { describe, expect, it } from 'vitest'
import {
  combineShares,
  decodeOwnerKitWords,
  decodeRecoveryWords,
  decodeShareWords,
  encodeOwnerKitWords,
  encodeShareWords,
  type GuardianShare,
  generateVaultKey,
  keyCheckValue,
  ShareInputError,
  type ShareInputErrorReason,
  splitVaultKey,
  vaultFingerprint,
} from '../../src/main/core/crypto/index'
import { decodeEnvelope, encodeEnvelope } from '../../src/main/core/crypto/share-envelope'
import { bytesToWordIndices, wordIndicesToBytes } from '../../src/main/core/crypto/share-words'

const vaultId = '7d1c2a9e-4b0f-4e8a-9c3d-2f6b8a1e0c55'

async function expectRefusal(run: () => unknown, reason: ShareInputErrorReason, message?: RegExp) {
  let caught: unknown
  try {
    await run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(ShareInputError)
  expect((caught as ShareInputError).reason).toBe(reason)
  if (message) expect((caught as Error).message).toMatch(message)
}

describe('vault key derivations', () => {
  it('fingerprint and key-check are stable, distinct per key, and human-comparable', () => {
    const key = generateVaultKey()
    expect(key.length).toBe(32)
    expect(vaultFingerprint(key)).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/)
    expect(vaultFingerprint(key)).toBe(vaultFingerprint(Uint8Array.from(key)))
    expect(vaultFingerprint(generateVaultKey())).not.toBe(vaultFingerprint(key))
    expect(keyCheckValue(key).length).toBe(4)
  })
})

describe('word encoding', () => {
  it('packs 11 bits per word and back', () => {
    for (let n = 1; n < 80; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff)
      const indices = bytesToWordIndices(bytes)
      expect(indices.length).toBe(Math.ceil((n * 8) / 11))
      const back = wordIndicesToBytes(indices)
      expect(Buffer.from(back.bytes.subarray(0, n)).equals(Buffer.from(bytes))).toBe(true)
      expect(back.padding).toBe(0)
    }
  })

  it('round-trips envelopes with UUID and free-form vault ids', async () => {
    const key = generateVaultKey()
    for (const id of [vaultId, 'vault_42', 'Ünïcode vault ✓']) {
      const [share] = await splitVaultKey(key, id, 'standard')
      const back = decodeEnvelope(encodeEnvelope(share!))
      expect(back).toEqual(share)
    }
  })
})

describe('split and combine', () => {
  it.each(['standard', 'enhanced'] as const)(
    '%s: any threshold subset recovers the key and vault id',
    async (preset) => {
      const key = generateVaultKey()
      const shares = await splitVaultKey(Buffer.from(key), vaultId, preset)
      const { threshold, shareCount } = shares[0]!
      expect([threshold, shareCount]).toEqual(preset === 'standard' ? [2, 3] : [3, 5])
      expect(new Set(shares.map((s) => s.splitId)).size).toBe(1)
      for (let start = 0; start < shareCount; start++) {
        const subset = Array.from({ length: threshold }, (_, k) => shares[(start + k) % shareCount]!)
        const typed = subset.map((s) => decodeShareWords(encodeShareWords(s)))
        const result = await combineShares(typed)
        expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
        expect(result.vaultId).toBe(vaultId)
      }
    },
  )

  it('a new split gets a new split id', async () => {
    const key = generateVaultKey()
    const a = await splitVaultKey(key, vaultId, 'standard')
    const b = await splitVaultKey(key, vaultId, 'standard')
    expect(a[0]!.splitId).not.toBe(b[0]!.splitId)
    await expectRefusal(() => combineShares([a[0]!, b[1]!]), 'different-splits', /different sets/)
  })

  it('refuses shares of different vaults, duplicates and too few', async () => {
    const [a, b] = await Promise.all([
      splitVaultKey(generateVaultKey(), vaultId, 'standard'),
      splitVaultKey(generateVaultKey(), 'other-vault', 'standard'),
    ])
    await expectRefusal(() => combineShares([a[0]!, b[1]!]), 'different-vaults', /different vaults/)
    await expectRefusal(
      () => combineShares([a[1]!, a[1]!]),
      'duplicate-share',
      /Share 2 of 3 was entered twice/,
    )
    await expectRefusal(() => combineShares([a[2]!]), 'too-few-shares', /2 of 3 needed; you entered 1/)
    await expectRefusal(() => combineShares([]), 'too-few-shares')
  })

  it('refuses a combination whose key fails the check value, and skips a bad extra share', async () => {
    const key = generateVaultKey()
    const shares = await splitVaultKey(key, vaultId, 'standard')
    const tampered: GuardianShare = {
      ...shares[0]!,
      share: shares[0]!.share.map((b, i) => (i === 3 ? b ^ 1 : b)),
    }
    await expectRefusal(() => combineShares([tampered, shares[1]!]), 'key-check-failed', /damaged/)
    const recovered = await combineShares([tampered, shares[1]!, shares[2]!])
    expect(Buffer.from(recovered.vaultKey).equals(Buffer.from(key))).toBe(true)
  })
})

describe('reading typed words', () => {
  let share: GuardianShare
  let words: string[]

  it('tolerates case, extra whitespace, numbering and 4-letter abbreviations', async () => {
    share = (await splitVaultKey(generateVaultKey(), vaultId, 'standard'))[0]!
    words = encodeShareWords(share).split(' ')
    const messy = words
      .map(
        (w, i) =>
          `${i + 1}. ${i % 3 === 0 ? w.toUpperCase() : w.length > 4 && i % 5 === 0 ? w.slice(0, 4) : w}`,
      )
      .join(' \t ')
    expect(decodeShareWords(`\n  ${messy}  \n`)).toEqual(share)
  })

  it('names a misspelled word and suggests the right one', async () => {
    const typo = words.slice()
    typo[6] = 'abandn'
    await expectRefusal(
      () => decodeShareWords(typo.join(' ')),
      'unknown-word',
      /word 7, 'abandn', is not in the word list — check the spelling\. Did you mean 'abandon'/i,
    )
  })

  it('finds a wrong but valid word, and swapped neighbours, through the checksum', async () => {
    const wrong = words.slice()
    const original = wrong[11]!
    wrong[11] = original === 'zoo' ? 'zone' : 'zoo'
    await expectRefusal(
      () => decodeShareWords(wrong.join(' ')),
      'checksum',
      new RegExp(`word 12, '${wrong[11]}', should probably be '${original}'`),
    )
    const swapped = words.slice()
    let p = 20
    while (swapped[p] === swapped[p + 1]) p++
    ;[swapped[p], swapped[p + 1]] = [swapped[p + 1]!, swapped[p]!]
    await expectRefusal(
      () => decodeShareWords(swapped.join(' ')),
      'checksum',
      new RegExp(`words ${p + 1} and ${p + 2}`),
    )
  })

  it('reports a missing word as a count problem', async () => {
    await expectRefusal(() => decodeShareWords(words.slice(0, -1).join(' ')), 'word-count', /skipped/)
    await expectRefusal(() => decodeShareWords('   '), 'empty')
  })

  it('keeps owner kits and guardian shares apart', async () => {
    const key = generateVaultKey()
    const ownerWords = encodeOwnerKitWords({ vaultKey: key, vaultId })
    const owner = decodeOwnerKitWords(ownerWords.toUpperCase())
    expect(Buffer.from(owner.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(owner.vaultId).toBe(vaultId)
    expect(decodeRecoveryWords(ownerWords).kind).toBe('owner-key')
    await expectRefusal(() => decodeShareWords(ownerWords), 'wrong-kind', /owner's recovery kit/)
    await expectRefusal(() => decodeOwnerKitWords(words.join(' ')), 'wrong-kind', /guardian share 1 of 3/)
  })
})
