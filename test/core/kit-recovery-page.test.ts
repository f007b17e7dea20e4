// The guardian kit's "day it is needed" page names the recovery page with the SHA-256 of the one this
// build ships, read from the build's .sha256 file (else computed from the page), and says how to check
// a copy; a build without a page does not mention it.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { renderGuardianKitHtml } from '../../src/main/core/printable/kit-pages'
import { shippedRecoveryPageSha256 } from '../../src/main/core/printable/recovery-page-digest'
import { generateVaultKey, splitVaultKey } from '../../src/vault-format/index'

const temp = mkdtempSync(join(tmpdir(), 'kit-page-'))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

describe("the recovery page's SHA-256 on the kits", () => {
  it("is the page's own, found upward from where the app runs; a stale .sha256 beside it is not believed", async () => {
    const root = join(temp, 'with-record')
    mkdirSync(join(root, 'out/recovery-page'), { recursive: true })
    mkdirSync(join(root, 'out/main'), { recursive: true })
    writeFileSync(join(root, 'out/recovery-page/vault-recovery.html'), '<!doctype html>page')
    // A record left by another build: printed on a kit, the heir's genuine page would not match it.
    writeFileSync(
      join(root, 'out/recovery-page/vault-recovery.html.sha256'),
      `${'ab'.repeat(32)}  vault-recovery.html\n`,
    )
    expect(await shippedRecoveryPageSha256([join(root, 'out/main')])).toBe(
      createHash('sha256').update('<!doctype html>page').digest('hex'),
    )
  })

  it('is computed from the page when no .sha256 is beside it, and absent without a page', async () => {
    const root = join(temp, 'page-only')
    mkdirSync(join(root, 'recovery-page'), { recursive: true })
    writeFileSync(join(root, 'recovery-page/vault-recovery.html'), 'the page')
    expect(await shippedRecoveryPageSha256([root])).toBe(
      createHash('sha256').update('the page').digest('hex'),
    )
    const empty = join(temp, 'none')
    mkdirSync(empty)
    expect(await shippedRecoveryPageSha256([empty])).toBeUndefined()
  })

  it('is printed on the "day it is needed" page with how to check a copy, and only when there is a page', async () => {
    const [share] = await splitVaultKey(generateVaultKey(), 'vault-1', { threshold: 2, shares: 3 })
    const sha = createHash('sha256').update('x').digest('hex')
    const html = renderGuardianKitHtml({ guardianName: 'Gina', share: share!, recoveryPageSha256: sha })
    const dayPage = html.slice(html.indexOf('The day it is needed'))
    expect(dayPage).toContain(`${sha.slice(0, 32)} ${sha.slice(32)}`)
    expect(dayPage).toContain('sha256sum vault-recovery.html')
    expect(dayPage).toContain('certutil -hashfile vault-recovery.html SHA256')
    expect(dayPage).toContain('shasum -a 256 vault-recovery.html')
    expect(dayPage).toContain('/recover')
    const without = renderGuardianKitHtml({ guardianName: 'Gina', share: share! })
    expect(without).not.toContain('vault-recovery.html')
  })
})
