// The bundle planner the estimate and the queue share: limits, repeated paths, lone files, shares.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_BUNDLE_LIMITS,
  planBundles,
  planCost,
  splitByWeight,
} from '../../src/main/core/uploads/upload-bundle-plan'
import { uploadCostCredits } from '../../src/shared/api'
import { encryptedBundleLength, encryptedFileLength } from '../../src/vault-format'

const file = (path: string, size: number) => ({ path, size })
const limits = { fileThreshold: 100, maxFiles: 3, maxContentBytes: 250 }

describe('bundle planner', () => {
  it('bundles files below the threshold, in order, within the file and content limits', () => {
    const files = [
      file('a', 10),
      file('big', 100), // at the threshold: alone
      file('b', 99),
      file('c', 99),
      file('d', 60), // would pass 250 bytes: next bundle
      file('e', 1),
      file('f', 1),
      file('g', 1), // a fourth file: next bundle
      file('h', 1),
    ]
    expect(planBundles(files, limits)).toEqual({
      bundles: [
        [0, 2, 3],
        [4, 5, 6],
        [7, 8],
      ],
      singles: [1],
    })
  })

  it('never puts a path twice in a bundle; a lone small file is a bundle of one only when no other bundle carries the manifest', () => {
    expect(planBundles([file('x', 1), file('y', 1), file('x', 2)], limits)).toEqual({
      bundles: [[0, 1]],
      singles: [2],
    })
    // Alone it would be a file blob plus a manifest blob of its own: two uploads, one credit more.
    expect(planBundles([file('only', 5)], limits)).toEqual({ bundles: [[0]], singles: [] })
    expect(planBundles([file('big', 100), file('small', 5)], limits)).toEqual({
      bundles: [[1]],
      singles: [0],
    })
    expect(planBundles([file('a', 5), file('b', 5)], false)).toEqual({ bundles: [], singles: [0, 1] })
  })

  it('holds the writer limits for any input, every file exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ path: fc.constantFrom('a', 'b', 'c', 'd', 'e'), size: fc.nat(150) }), {
          maxLength: 40,
        }),
        (files) => {
          const plan = planBundles(files, limits)
          const seen = [...plan.singles, ...plan.bundles.flat()].sort((x, y) => x - y)
          expect(seen).toEqual(files.map((_, i) => i))
          for (const group of plan.bundles) {
            // A bundle of one only as the plan's only bundle (it carries the manifest).
            expect(group.length).toBeGreaterThanOrEqual(plan.bundles.length === 1 ? 1 : 2)
            expect(group.length).toBeLessThanOrEqual(limits.maxFiles)
            expect(group.reduce((s, i) => s + files[i]!.size, 0)).toBeLessThanOrEqual(limits.maxContentBytes)
            expect(new Set(group.map((i) => files[i]!.path)).size).toBe(group.length)
            for (const i of group) expect(files[i]!.size).toBeLessThan(limits.fileThreshold)
          }
        },
      ),
    )
  })

  it('costs a plan as the uploads it makes, and the same files one by one', () => {
    const files = Array.from({ length: 2000 }, (_, i) => file(`Docs/${i}.txt`, 10_000))
    const plan = planBundles(files, DEFAULT_BUNDLE_LIMITS)
    expect(plan.bundles).toHaveLength(1)
    const cost = planCost(files, plan)
    expect(cost).toEqual({
      encryptedBytes: encryptedBundleLength(files),
      credits: uploadCostCredits(encryptedBundleLength(files)),
      bundles: 1,
      bundledFiles: 2000,
      creditsWithoutBundles: files.reduce((s, f) => s + uploadCostCredits(encryptedFileLength(f)), 0),
      cheapestUploadCredits: uploadCostCredits(encryptedBundleLength(files)),
    })
    expect(cost.credits / cost.creditsWithoutBundles).toBeLessThan(0.05)
  })

  it('knows its cheapest single upload, so a short balance can tell whether any of it fits', () => {
    const files = [file('Films/a.mov', 30_000_000), file('Films/b.mov', 5_000_000), file('n.txt', 10)]
    const cost = planCost(files, planBundles(files, DEFAULT_BUNDLE_LIMITS))
    expect(cost.cheapestUploadCredits).toBe(1)
    const big = [files[0]!, files[1]!]
    expect(planCost(big, planBundles(big, DEFAULT_BUNDLE_LIMITS)).cheapestUploadCredits).toBe(
      uploadCostCredits(encryptedFileLength(files[1]!)),
    )
    expect(planCost([], planBundles([], DEFAULT_BUNDLE_LIMITS)).cheapestUploadCredits).toBe(0)
  })

  it('splits credits over files in proportion, adding up to exactly the total', () => {
    expect(splitByWeight(3, [1, 1, 1, 1])).toEqual([1, 1, 1, 0])
    expect(splitByWeight(10, [5, 0, 5])).toEqual([5, 0, 5])
    expect(splitByWeight(0, [4, 2])).toEqual([0, 0])
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.array(fc.nat(1_000_000), { minLength: 1, maxLength: 50 }),
        (total, weights) => {
          const shares = splitByWeight(total, weights)
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total)
          expect(shares.every((s) => Number.isInteger(s) && s >= 0)).toBe(true)
        },
      ),
    )
  })
})
