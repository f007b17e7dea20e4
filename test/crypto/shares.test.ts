import { sha256 } from '@noble/hashes/sha2.js'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { describe, expect, it } from 'vitest'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
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
} from '../../src/vault-format/index'
import { decodeEnvelope, encodeEnvelope } from '../../src/vault-format/share-envelope'
import { bytesToWordIndices, wordIndicesToBytes } from '../../src/vault-format/share-words'
import { combineShareWords } from '../../src/vault-format/vault-shares'

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
      const [share] = await splitVaultKey(key, id, SSS_PRESET_SHAPE.standard)
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
      const shares = await splitVaultKey(Buffer.from(key), vaultId, SSS_PRESET_SHAPE[preset])
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
    const a = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const b = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    expect(a[0]!.splitId).not.toBe(b[0]!.splitId)
    await expectRefusal(() => combineShares([a[0]!, b[1]!]), 'different-splits', /different sets/)
  })

  it('refuses shares of different vaults, duplicates and too few', async () => {
    const [a, b] = await Promise.all([
      splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard),
      splitVaultKey(generateVaultKey(), 'other-vault', SSS_PRESET_SHAPE.standard),
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
    const shares = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const tampered: GuardianShare = {
      ...shares[0]!,
      share: shares[0]!.share.map((b, i) => (i === 3 ? b ^ 1 : b)),
    }
    await expectRefusal(() => combineShares([tampered, shares[1]!]), 'key-check-failed', /damaged/)
    const recovered = await combineShares([tampered, shares[1]!, shares[2]!])
    expect(Buffer.from(recovered.vaultKey).equals(Buffer.from(key))).toBe(true)
  })
})

describe('more kits than needed (FORMAT.md 5.4)', () => {
  const alter = (s: GuardianShare, at = 3): GuardianShare => ({
    ...s,
    share: s.share.map((b, i) => (i === at ? b ^ 1 : b)),
  })

  it('a kit of another vault, of an older split, or entered twice does not stop a recovery', async () => {
    const key = generateVaultKey()
    const [now, old, other] = await Promise.all([
      splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard),
      splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard),
      splitVaultKey(generateVaultKey(), 'other-vault', SSS_PRESET_SHAPE.enhanced),
    ])
    const result = await combineShares([other[0]!, old[2]!, now[1]!, now[1]!, now[2]!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.vaultId).toBe(vaultId)
    expect(result.used).toEqual([2, 4])
    expect(result.ignored.map((i) => i.index)).toEqual([0, 1, 3])
    const reason = (i: number) => result.ignored.find((x) => x.index === i)!.reason
    expect(reason(0)).toMatch(/^Kit 1 \(share 1 of 5\) belongs to another vault/)
    expect(reason(1)).toMatch(/^Kit 2 \(share 3 of 3\) comes from another set of shares of this vault/)
    expect(reason(3)).toMatch(/^Kit 4 \(share 2 of 3\) is the same kit as kit 3, entered twice/)
  })

  it('an altered kit is left out and named; good extra kits count as used', async () => {
    const key = generateVaultKey()
    const shares = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.enhanced)
    const [s1, s2, s3, s4, s5] = shares
    const result = await combineShares([s1!, alter(s2!), s3!, s4!, s5!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([0, 2, 3, 4])
    expect(result.ignored).toEqual([{ index: 1, reason: expect.stringMatching(/^Kit 2 .* does not fit/) }])
    // Two altered of five: three good ones remain, and are found.
    const two = await combineShares([alter(s1!), s2!, s3!, alter(s4!, 30), s5!])
    expect(Buffer.from(two.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(two.used).toEqual([1, 2, 4])
    expect(two.ignored.map((i) => i.index)).toEqual([0, 3])
  })

  it('two different kits claiming the same share number: the one that fits wins', async () => {
    const key = generateVaultKey()
    const [s1, s2, s3] = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const result = await combineShares([alter(s1!), s1!, s2!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([1, 2])
    expect(result.ignored.map((i) => i.index)).toEqual([0])
    // Two kits claiming share 3 are never combined together: one of them was altered.
    await expectRefusal(
      () => combineShares([alter(s3!), s3!]),
      'duplicate-share',
      /^Kits 1 and 2 have the same share number or share point but different contents/,
    )
  })

  it('with two complete sets of different vaults, the first one given is recovered', async () => {
    const keyA = generateVaultKey()
    const [a, b] = await Promise.all([
      splitVaultKey(keyA, vaultId, SSS_PRESET_SHAPE.standard),
      splitVaultKey(generateVaultKey(), 'other-vault', SSS_PRESET_SHAPE.standard),
    ])
    const result = await combineShares([a[0]!, b[0]!, b[1]!, a[1]!])
    expect(result.vaultId).toBe(vaultId)
    expect(result.used).toEqual([0, 3])
    expect(result.ignored.map((i) => i.index)).toEqual([1, 2])
  })

  it('when no set has enough, the error says how many each set has', async () => {
    const [a, b] = await Promise.all([
      splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.enhanced),
      splitVaultKey(generateVaultKey(), 'other-vault', SSS_PRESET_SHAPE.standard),
    ])
    await expectRefusal(
      () => combineShares([a[0]!, a[1]!, b[0]!]),
      'different-vaults',
      /different vaults .* no vault has enough .* has 2 of the 3 needed\. Set .* has 1 of the 2 needed\./,
    )
    await expectRefusal(
      () => combineShares([a[3]!, a[3]!, a[3]!]),
      'duplicate-share',
      /Share 4 of 5 was entered twice/,
    )
  })

  it('gives up with a clear error instead of trying millions of combinations', async () => {
    const key = generateVaultKey()
    const base = (await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard))[0]!
    // 30 kits claiming a 5-of-30 split, none of them real: C(30, 5) subsets would be 142506.
    const fakes = Array.from({ length: 30 }, (_, i) => ({
      ...base,
      threshold: 5,
      shareCount: 30,
      shareIndex: i + 1,
      share: Uint8Array.from({ length: 33 }, (_, j) => (j === 32 ? i + 1 : (i * 31 + j * 7) & 0xff)),
    }))
    await expectRefusal(() => combineShares(fakes), 'too-many-shares', /Too many kits/)
  })

  it('from words: an unreadable kit is left out when the others suffice, and named when they do not', async () => {
    const key = generateVaultKey()
    const shares = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const words = shares.map(encodeShareWords)
    const typo = words[0]!.replace(/^\S+/, 'abandn')
    const result = await combineShareWords([typo, words[1]!, words[2]!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([1, 2])
    expect(result.ignored).toEqual([
      {
        index: 0,
        reason: expect.stringMatching(/^Kit 1 cannot be read, so it was left out: Word 1, 'abandn'/),
      },
    ])
    await expectRefusal(
      () => combineShareWords([words[1]!, typo]),
      'unknown-word',
      /^Kit 2: Word 1, 'abandn'/,
    )
    const owner = encodeOwnerKitWords({ vaultKey: key, vaultId })
    await expectRefusal(
      () => combineShareWords([owner, words[2]!]),
      'wrong-kind',
      /^Kit 1: These words are the owner's/,
    )
    await expectRefusal(() => combineShareWords([]), 'too-few-shares')
  })
})

describe('reading typed words', () => {
  let share: GuardianShare
  let words: string[]

  it('tolerates case, extra whitespace, numbering and 4-letter abbreviations', async () => {
    share = (await splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard))[0]!
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

describe('kit rules FORMAT.md settles (sections 5.1, 5.2, 5.4)', () => {
  /** Envelope bytes as words, with a fresh checksum: what a kit maker that writes them would print. */
  const asWords = (body: number[] | Uint8Array) => {
    const bytes = Uint8Array.from(body)
    const all = new Uint8Array([...bytes, ...sha256(bytes).subarray(0, 4)])
    return bytesToWordIndices(all)
      .map((i) => wordlist[i]!)
      .join(' ')
  }
  const body = (envelope: Uint8Array) => envelope.subarray(0, envelope.length - 4)

  it('an owner kit among guardian kits is set aside, and two owner kits give no key', async () => {
    const key = generateVaultKey()
    const words = (await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const owner = encodeOwnerKitWords({ vaultKey: key, vaultId })
    const result = await combineShareWords([words[0]!, owner, words[2]!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([0, 2])
    expect(result.ignored).toEqual([
      {
        index: 1,
        reason: expect.stringMatching(/^Kit 2 cannot be read.*owner's recovery kit.*on their own/),
      },
    ])
    await expectRefusal(
      () => combineShareWords([owner, owner]),
      'wrong-kind',
      /^Kit 1: These words are the owner's recovery kit/,
    )
  })

  it('two kits with one x-coordinate are never combined together, whatever their share numbers', async () => {
    const key = generateVaultKey()
    const [s1, , s3] = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const renumbered: GuardianShare = { ...s1!, shareIndex: 2 }
    const result = await combineShares([s1!, renumbered, s3!])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([0, 2])
    expect(result.ignored).toEqual([
      {
        index: 1,
        reason: expect.stringMatching(
          /^Kit 2 \(share 2 of 3\) has the share number or the share point of kit 1/,
        ),
      },
    ])
    await expectRefusal(
      () => combineShares([s1!, renumbered]),
      'duplicate-share',
      /^Kits 1 and 2 have the same share number or share point/,
    )
  })

  it('reads a lower-case UUID written length-prefixed as the same vault id, and writes it as 0xFF', async () => {
    const key = generateVaultKey()
    const [s1, s2] = await splitVaultKey(key, vaultId, SSS_PRESET_SHAPE.standard)
    const canonical = encodeEnvelope(s1!)
    expect(canonical[19]).toBe(0xff)
    const long = [...canonical.subarray(0, 19), 36, ...Buffer.from(vaultId), ...canonical.subarray(36, 69)]
    const read = decodeShareWords(asWords(long))
    expect(read).toEqual(s1)
    expect(Buffer.from(encodeEnvelope(read)).equals(Buffer.from(canonical))).toBe(true)
    const result = await combineShareWords([asWords(long), encodeShareWords(s2!)])
    expect(Buffer.from(result.vaultKey).equals(Buffer.from(key))).toBe(true)
    expect(result.vaultId).toBe(vaultId)
    // An upper-case UUID is another vault id (compared byte for byte), carried length-prefixed.
    const upper = vaultId.toUpperCase()
    const [u] = await splitVaultKey(key, upper, SSS_PRESET_SHAPE.standard)
    expect(encodeEnvelope(u!)[19]).toBe(36)
    expect(decodeShareWords(encodeShareWords(u!)).vaultId).toBe(upper)
  })

  it('refuses x-coordinate 0 and share numbers outside 1..share count, with the reason', async () => {
    const [s1] = await splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard)
    const zeroX = encodeEnvelope({ ...s1!, share: Uint8Array.from([...s1!.share.subarray(0, 32), 0]) })
    await expectRefusal(() => decodeShareWords(asWords(body(zeroX))), 'malformed', /x-coordinate 0/)
    for (const [index, shown] of [
      [4, /share 4 of 3/],
      [0, /share 0 of 3/],
    ] as const) {
      const bad = encodeEnvelope({ ...s1!, shareIndex: index })
      await expectRefusal(() => decodeShareWords(asWords(body(bad))), 'malformed', shown)
    }
    const few = encodeEnvelope({ ...s1!, threshold: 3, shareCount: 2 })
    await expectRefusal(() => decodeShareWords(asWords(body(few))), 'malformed', /2 shares, fewer than the 3/)
  })

  it('takes exactly the leniency FORMAT.md 5.2 lists', async () => {
    const share = (await splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard))[0]!
    const words = encodeShareWords(share).split(' ')
    const forms = [
      (w: string, n: number) => `${n}. ${w}`,
      (w: string, n: number) => `${n}) ${w};`,
      (w: string, n: number) => `(${n}) "${w}"`,
      (w: string, n: number) => `#${n} '${w}',`,
      (w: string, n: number) => `${n}: ${w.toUpperCase()}`,
      (w: string, n: number) => `${n} — ${w}`,
      (w: string, n: number) => `${n}.${w}.`,
      (w: string) => `• «${w}»`,
    ]
    const messy = words.map((w, i) => forms[i % forms.length]!(w, i + 1)).join('\n')
    expect(decodeShareWords(messy)).toEqual(share)
    expect(decodeShareWords(words.join('\u0085\ufeff\u3000'))).toEqual(share)
    // Inside a word, nothing is removed: the message quotes it back.
    const hyphen = words.slice()
    hyphen[4] = `${words[4]!.slice(0, 2)}-${words[4]!.slice(2)}`
    await expectRefusal(
      () => decodeShareWords(hyphen.join(' ')),
      'unknown-word',
      /^Word 5, '.*-.*', is not in/,
    )
    // A "?" stands for an unreadable word and keeps its place.
    const unreadable = words.slice()
    unreadable[9] = '??'
    await expectRefusal(
      () => decodeShareWords(unreadable.join(' ')),
      'unknown-word',
      /^Word 10 is not filled in \('\?\?'\)/,
    )
    await expectRefusal(() => decodeShareWords('1 2 3 (4) #5 6:'), 'empty', /Only numbers were entered/)
    await expectRefusal(() => decodeShareWords(' - • '), 'empty', /No words were entered/)
  })
})
