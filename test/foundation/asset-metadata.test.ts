// The metadata an upload gives the service: what the app writes reads back whole through the one
// schema, and what a wrong or hostile service returns is dropped field by field, never the listing.
import { describe, expect, it } from 'vitest'
import {
  bundleMetadata,
  hiddenUploadMetadata,
  manifestMetadata,
  uploadMetadata,
} from '../../src/main/core/uploads/upload-metadata'
import type { Asset } from '../../src/shared/api'
import { assetMetadata } from '../../src/shared/asset-metadata'
import { listedFiles } from '../../src/shared/service-answers'

const asset = (id: string, filename: string, metadata: unknown): Asset & { metadata: unknown } => ({
  id,
  filename,
  contentType: 'application/octet-stream',
  sizeBytes: 100,
  category: 'other',
  storageTxId: `tx-${id}`,
  createdAt: '2026-11-01T10:00:00.000Z',
  metadata,
})

describe('asset metadata', () => {
  it('reads back everything the app writes, through the one schema', () => {
    for (const written of [
      uploadMetadata('Documents/will.pdf', 1234, Date.UTC(2026, 0, 2)),
      bundleMetadata(40, 9999, false, true),
      bundleMetadata(3, 10, true),
      hiddenUploadMetadata(),
      manifestMetadata(),
    ]) {
      const sent = JSON.parse(written)
      const read = assetMetadata({ metadata: sent })
      expect(Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined))).toEqual(sent)
    }
  })

  it('drops a field of the wrong shape alone, and anything that is not an object', () => {
    const read = assetMetadata({
      metadata: {
        relativePath: 'a/b.txt',
        plaintextBytes: -1,
        fileCount: 2 ** 60,
        bundle: 'yes',
        manifest: true,
        nameSealedInside: 1,
        surprise: { deep: true },
      },
    })
    expect(read).toMatchObject({ relativePath: 'a/b.txt', manifest: true })
    for (const field of ['plaintextBytes', 'fileCount', 'bundle', 'nameSealedInside', 'surprise']) {
      expect(read).not.toHaveProperty(field, expect.anything())
    }
    for (const metadata of [undefined, null, 'x', 7, [1, 2], { relativePath: 5 }]) {
      expect(Object.values(assetMetadata({ metadata })).filter((v) => v !== undefined)).toEqual([])
    }
  })

  it('an heir’s listing keeps every asset when one has odd metadata', () => {
    const files = listedFiles(
      [
        asset('a1', 'file-1.vault', { relativePath: 'Letters/to-ana.txt', plaintextBytes: 12 }),
        asset('a2', 'photo.jpg', { relativePath: ['not', 'a', 'path'], plaintextBytes: 'big', bundle: true }),
        asset('a3', 'file-3.vault', { bundle: true, fileCount: 3 }),
        asset('a4', 'file-4.vault', 'not an object'),
      ],
      (i) => `file-${i + 1}`,
    )
    expect(files).toEqual([
      { name: 'Letters/to-ana.txt', uploadedAtMs: Date.UTC(2026, 10, 1, 10), declaredPlaintextBytes: 12 },
      { name: 'photo.jpg', uploadedAtMs: Date.UTC(2026, 10, 1, 10) },
      { name: 'file-3.vault', uploadedAtMs: Date.UTC(2026, 10, 1, 10), fileCount: 3 },
      { name: 'file-4.vault', uploadedAtMs: Date.UTC(2026, 10, 1, 10) },
    ])
  })
})
