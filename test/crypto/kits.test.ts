// Renders the printable kits with Debian Chromium: PDFs must fit two pages on A4 and on Letter, the
// QR in the rendered page must scan back to the same share, and screenshots land in
// test-results/kits/ for a human look.
import { mkdirSync, writeFileSync } from 'node:fs'
import jsQR from 'jsqr'
import { type Browser, chromium, type Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderGuardianKitHtml, renderOwnerKitHtml } from '../../src/main/core/printable/kit-pages'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  decodeRecoveryWords,
  generateVaultKey,
  splitVaultKey,
  vaultFingerprint,
} from '../../src/vault-format/index'
import { kitCheckCode } from '../../src/vault-format/kit-check'

const outDir = 'test-results/kits'
let browser: Browser
let page: Page

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  page = await browser.newPage({ viewport: { width: 794, height: 1123 } })
})

afterAll(async () => {
  await browser?.close()
})

function pdfPageCount(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length
}

async function renderAndCheck(name: string, html: string) {
  // Playwright's own runner empties test-results/ when it starts, possibly in parallel with us.
  const ensureDir = () => mkdirSync(outDir, { recursive: true })
  await page.setContent(html)
  await page.emulateMedia({ media: 'print' })
  for (const format of ['A4', 'Letter'] as const) {
    const pdf = await page.pdf({ format })
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    expect(pdfPageCount(pdf), `${name} on ${format}`).toBe(2)
    ensureDir()
    writeFileSync(`${outDir}/${name}-${format}.pdf`, pdf)
  }
  ensureDir()
  await page.screenshot({ path: `${outDir}/${name}.png`, fullPage: true })
  // The QR as printed must scan back to the words.
  const qr = PNG.sync.read(await page.locator('figure svg').screenshot())
  const scanned = jsQR(new Uint8ClampedArray(qr.data), qr.width, qr.height)
  expect(scanned, 'QR code readable').not.toBeNull()
  return decodeRecoveryWords(scanned!.data)
}

describe('printable kits', () => {
  it('guardian kit: complete, escaped, two pages, scannable', async () => {
    const key = generateVaultKey()
    const shares = await splitVaultKey(key, '7d1c2a9e-4b0f-4e8a-9c3d-2f6b8a1e0c55', SSS_PRESET_SHAPE.enhanced)
    const html = renderGuardianKitHtml({
      guardianName: 'Margaret Anne O’Brien-Fitzgerald <b>',
      ownerName: 'Daniel Weber',
      share: shares[2]!,
      createdAt: new Date('2026-11-22T10:00:00Z'),
    })
    expect(html).toMatch(/^<!doctype html>/)
    expect(html).not.toContain('<b>')
    expect(html).toContain('&lt;b&gt;')
    expect(html).toContain(vaultFingerprint(key))
    expect(html).toContain('any three of the five')
    expect(html).toContain(shares[2]!.splitId)
    expect(html).toContain('22 November 2026')
    expect(html).not.toMatch(/<script|\b(src|href)=/)
    const scanned = await renderAndCheck('guardian-kit', html)
    expect(scanned).toEqual(shares[2])
    // The check code, in its own box apart from the words, as a guardian reads it off the page.
    const code = kitCheckCode(shares[2]!.share, shares[2]!.vaultId)
    expect(await page.locator('.check-code [data-kit-check-code]').innerText()).toBe(code)
    expect(await page.locator('ol.words').innerText()).not.toContain(code)
    expect(await page.locator('.check-code').innerText()).toContain('not needed for recovery')
    // Another kit of the same split carries another code.
    expect(kitCheckCode(shares[1]!.share, shares[1]!.vaultId)).not.toBe(code)
    // With the recovery page named (its SHA-256 and the commands that check it) and the vault's name,
    // still two pages.
    const withPage = renderGuardianKitHtml({
      guardianName: 'Margaret Anne O’Brien-Fitzgerald',
      ownerName: 'Daniel Weber',
      vaultName: 'Family papers of the Weber household',
      share: shares[2]!,
      createdAt: new Date('2026-11-22T10:00:00Z'),
      recoveryPageSha256: 'ab'.repeat(32),
    })
    expect(await renderAndCheck('guardian-kit-recovery-page', withPage)).toEqual(shares[2])
  })

  it('owner kit: the vault key itself, two pages, scannable', async () => {
    const key = generateVaultKey()
    const html = renderOwnerKitHtml({
      vaultKey: key,
      vaultId: 'vault_42',
      ownerName: 'Daniel Weber',
      vaultName: 'Family papers of the Weber household',
    })
    expect(html).toContain(vaultFingerprint(key))
    expect(html).toContain(
      '<span class="kit-vault-name"><bdi>Family papers of the Weber household</bdi></span>',
    )
    const scanned = await renderAndCheck('owner-kit', html)
    expect(scanned.kind).toBe('owner-key')
    expect(scanned.kind === 'owner-key' && Buffer.from(scanned.vaultKey).equals(Buffer.from(key))).toBe(true)
  })
})
