// Practice kits for the rehearsal (FORMAT.md 5.1, kind 0x03): a throwaway key split like the vault,
// kits that carry the vault id and a last day, and that never mix with real kits either way.
import { describe, expect, it } from 'vitest'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  combinePracticeShares,
  combinePracticeWords,
  combineShareWords,
  decodeKitWords,
  decodeOwnerKitWords,
  decodePracticeShareWords,
  decodeRecoveryWords,
  decodeShareWords,
  encodeOwnerKitWords,
  encodePracticeShareWords,
  encodeShareWords,
  generateVaultKey,
  type PracticeShare,
  ShareInputError,
  type ShareInputErrorReason,
  splitPracticeKey,
  splitVaultKey,
  vaultFingerprint,
} from '../../src/vault-format/index'
import { decodeEnvelope, encodeEnvelope } from '../../src/vault-format/share-envelope'

const vaultId = '7d1c2a9e-4b0f-4e8a-9c3d-2f6b8a1e0c55'
const before = { now: new Date('2026-12-01T23:59:59Z') }

async function refusal(run: () => unknown): Promise<ShareInputError> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(ShareInputError)
    return error as ShareInputError
  }
  throw new Error('expected a refusal')
}

async function expectRefusal(run: () => unknown, reason: ShareInputErrorReason, message: RegExp) {
  const error = await refusal(run)
  expect(error.reason).toBe(reason)
  expect(error.message).toMatch(message)
}

describe('practice kits', () => {
  it('split with the vault preset, carrying the vault id and the last day, and combine back', async () => {
    const practiceKey = generateVaultKey()
    for (const preset of ['standard', 'enhanced'] as const) {
      const shares = await splitPracticeKey(practiceKey, vaultId, SSS_PRESET_SHAPE[preset], '2026-12-01')
      expect(shares.map((s) => [s.kind, s.shareIndex, s.vaultId, s.expiresOn])).toEqual(
        shares.map((_, i) => ['practice-share', i + 1, vaultId, '2026-12-01']),
      )
      expect(shares[0]!.fingerprint).toBe(vaultFingerprint(practiceKey))
      const bytes = encodeEnvelope(shares[0]!)
      // Kind 0x03; the guardian share's layout, then the day number (20788 = 2026-12-01), then the checksum.
      expect([bytes[0], bytes[1]]).toEqual([1, 3])
      expect(bytes.length).toBe(56 + 17 + 4)
      expect(Buffer.from(bytes.subarray(69, 73)).readUInt32BE()).toBe(20788)
      expect(decodeEnvelope(bytes)).toEqual(shares[0])
      const words = shares.map(encodePracticeShareWords)
      expect(decodePracticeShareWords(words[1]!.toUpperCase())).toEqual(shares[1])
      const { threshold } = shares[0]!
      const combined = await combinePracticeWords(words.slice(-threshold).reverse(), before)
      expect(Buffer.from(combined.practiceKey).equals(Buffer.from(practiceKey))).toBe(true)
      expect(combined).toMatchObject({ vaultId, expiresOn: '2026-12-01', ignored: [] })
      const fromShares = await combinePracticeShares(shares.slice(0, threshold), before)
      expect(Buffer.from(fromShares.practiceKey).equals(Buffer.from(practiceKey))).toBe(true)
    }
  })

  it('refuses a bad last day when splitting', async () => {
    for (const day of ['2026-02-30', '26-12-01', '1969-12-31', 'soon']) {
      await expect(
        splitPracticeKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard, day),
      ).rejects.toThrow(RangeError)
    }
  })

  it('real recovery refuses a practice kit, and sets it aside when real kits suffice', async () => {
    const vaultKey = generateVaultKey()
    const real = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const practice = (
      await splitPracticeKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard, '2026-12-01')
    ).map(encodePracticeShareWords)
    const message =
      /^This is a practice kit from a rehearsal .*: it cannot open the vault\. Ask the guardian for their real kit\.$/
    await expectRefusal(() => decodeShareWords(practice[0]!), 'practice-kit', message)
    await expectRefusal(() => decodeRecoveryWords(practice[0]!), 'practice-kit', message)
    await expectRefusal(() => decodeOwnerKitWords(practice[0]!), 'practice-kit', message)
    await expectRefusal(
      () => combineShareWords([practice[0]!, practice[1]!]),
      'practice-kit',
      /^Kit 1: This is a practice kit from a rehearsal/,
    )
    await expectRefusal(
      () => combineShareWords([real[0]!, practice[1]!]),
      'practice-kit',
      /^Kit 2: This is a practice kit/,
    )
    const mixed = await combineShareWords([practice[0]!, real[1]!, real[2]!])
    expect(Buffer.from(mixed.vaultKey).equals(Buffer.from(vaultKey))).toBe(true)
    expect(mixed.used).toEqual([1, 2])
    expect(mixed.ignored).toEqual([
      { index: 0, reason: expect.stringMatching(/^Kit 1 was left out: This is a practice kit/) },
    ])
  })

  it('practice recovery refuses real guardian and owner kits, even when practice kits suffice', async () => {
    const vaultKey = generateVaultKey()
    const real = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const owner = encodeOwnerKitWords({ vaultKey, vaultId })
    const practice = (
      await splitPracticeKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard, '2026-12-01')
    ).map(encodePracticeShareWords)
    await expectRefusal(
      () => decodePracticeShareWords(real[0]!),
      'real-kit',
      /^This is a real guardian kit \(share 1 of 3\): never use it for a practice\./,
    )
    await expectRefusal(
      () => decodePracticeShareWords(owner),
      'real-kit',
      /^This is the owner's real recovery kit .*never use it for a practice\./,
    )
    await expectRefusal(
      () => combinePracticeWords([practice[0]!, practice[1]!, real[2]!], before),
      'real-kit',
      /^Kit 3: This is a real guardian kit/,
    )
    await expectRefusal(
      () => combinePracticeWords([owner, practice[0]!, practice[1]!], before),
      'real-kit',
      /^Kit 1: This is the owner's real recovery kit/,
    )
    // Decoding any kit still tells the kinds apart.
    expect(decodeKitWords(practice[0]!).kind).toBe('practice-share')
    expect(decodeKitWords(real[0]!).kind).toBe('guardian-share')
  })

  it('an expired practice kit is set aside, and named when the rest are not enough', async () => {
    const key = generateVaultKey()
    const std = SSS_PRESET_SHAPE.standard
    const [a, b, c] = await splitPracticeKey(key, vaultId, std, '2026-12-01')
    const after = { now: new Date('2026-12-02T00:00:00Z') }
    await expectRefusal(
      () =>
        combinePracticeWords(
          [a, b].map((s) => encodePracticeShareWords(s!)),
          after,
        ),
      'practice-expired',
      /^Kit 1: This practice kit expired after 2026-12-01: its rehearsal is over\./,
    )
    await expectRefusal(() => combinePracticeShares([a!, b!], after), 'practice-expired', /expired/)
    // Same key, a later kit set: the expired kit is left out, the two current ones give the key.
    const [, d, e] = await splitPracticeKey(key, vaultId, std, '2026-12-31')
    const result = await combinePracticeShares([c!, d!, e!], after)
    expect(Buffer.from(result.practiceKey).equals(Buffer.from(key))).toBe(true)
    expect(result.used).toEqual([1, 2])
    expect(result.ignored).toEqual([
      { index: 0, reason: expect.stringMatching(/^Kit 1 was left out: This practice kit expired/) },
    ])
  })

  it('an altered last day does not combine with the set', async () => {
    const [a, b] = await splitPracticeKey(
      generateVaultKey(),
      vaultId,
      SSS_PRESET_SHAPE.standard,
      '2026-12-01',
    )
    const later: PracticeShare = { ...b!, expiresOn: '2030-01-01' }
    const error = await refusal(() => combinePracticeShares([a!, later], before))
    expect(error.reason).toBe('key-check-failed')
  })
})
