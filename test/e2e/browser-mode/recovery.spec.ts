// Recovery in the window: one share from a photo of its QR code (decoded in the page), one typed,
// then the encrypted files decrypted into a folder with a result per file.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { ConsoleMessage } from '@playwright/test'
import QRCode from 'qrcode'
import { recoveryQrText } from '../../../src/main/core/printable/share-qr'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../../src/vault-format'
import { expect, test } from '../support/fixtures'

// The file's one backend (fixture `app`); each test brings its own kits and files in its own folder.

test('shares from a QR photo and typed words decrypt the files into a chosen folder', async ({
  page,
  app,
  workDir: dir,
}) => {
  const errors: string[] = []
  page.on('console', (m: ConsoleMessage) => m.type() === 'error' && errors.push(m.text()))
  page.on('pageerror', (e) => errors.push(e.message))

  const vaultKey = generateVaultKey()
  const vaultId = 'vlt_e2e-recovery'
  const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
  const qrPng = join(dir, 'kit-photo.png')
  await writeFile(qrPng, await QRCode.toBuffer(recoveryQrText(shares[1]!), { scale: 6, margin: 4 }))
  const letter = Buffer.from('Dear family, the documents are in the blue folder.\n'.repeat(500))
  await writeFile(
    join(dir, 'letter.txt.vault'),
    await collectBytes(
      encryptStream(Readable.from([letter]), {
        vaultKey,
        vaultId,
        identity: { path: 'letter.txt', size: letter.length },
      }),
    ),
  )

  await page.setViewportSize({ width: 1280, height: 900 })
  await page.goto(app.url)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
  await page.getByText('I have the encrypted files on this computer').click()
  await page.locator('input[type="file"]').first().setInputFiles(qrPng)
  await expect(page.getByTestId('share-count')).toContainText('1 kit entered — 2 of 3 needed')
  await expect(page.getByText(/Kit 2 of 3, read correctly/)).toBeVisible()

  await page.getByRole('button', { name: 'Add another kit' }).click()
  await page.getByLabel('Kit 2').fill(encodeShareWords(shares[0]!))
  await page.getByLabel('Kit 2').blur()
  await expect(page.getByTestId('share-count')).toContainText('2 kits entered — enough to open the files')

  await page.getByLabel('Encrypted files or folders (one full path per line)').fill(dir)
  await page.getByLabel('Folder for the recovered files').fill(join(dir, 'recovered'))
  await page.getByRole('button', { name: 'Verify and decrypt' }).click()
  await expect(
    page.getByRole('heading', { name: /The file was recovered and checked\. It is in/ }),
  ).toBeVisible()
  await expect(page.getByRole('listitem').filter({ hasText: 'letter.txt.vault' })).toContainText(
    'decrypted and verified',
  )
  await page.screenshot({ path: 'test-results/screenshots/recovery-done.png', fullPage: true })
  expect(await readFile(join(dir, 'recovered', 'letter.txt'))).toEqual(letter)
  expect(errors).toEqual([])
})

test('a kit from an older set among enough current ones is left out and said; the files still come back', async ({
  page,
  app,
  workDir: dir,
}) => {
  const vaultKey = generateVaultKey()
  const vaultId = 'vlt_e2e-recovery-sets'
  const oldSet = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
  const current = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
  const files = await mkdtemp(join(dir, 'sets-'))
  const note = Buffer.from('The house keys are with the neighbour.\n')
  await writeFile(
    join(files, 'renamed-by-service.vault'),
    await collectBytes(
      encryptStream(Readable.from([note]), {
        vaultKey,
        vaultId,
        identity: { path: 'keys/note.txt', size: note.length },
      }),
    ),
  )

  await page.setViewportSize({ width: 1280, height: 900 })
  await page.goto(app.url)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
  await page.getByText('I have the encrypted files on this computer').click()
  const kits = [oldSet[0]!, current[1]!, current[2]!]
  for (const [i, kit] of kits.entries()) {
    if (i > 0) await page.getByRole('button', { name: 'Add another kit' }).click()
    await page.getByLabel(`Kit ${i + 1}`).fill(encodeShareWords(kit))
    await page.getByLabel(`Kit ${i + 1}`).blur()
  }
  await page.getByLabel('Encrypted files or folders (one full path per line)').fill(files)
  await page.getByLabel('Folder for the recovered files').fill(join(files, 'recovered'))
  await page.getByRole('button', { name: 'Verify and decrypt' }).click()
  await expect(
    page.getByRole('heading', { name: /The file was recovered and checked\. It is in/ }),
  ).toBeVisible()
  await expect(page.getByTestId('kits-set-aside')).toContainText('Kit 1')
  await page.screenshot({ path: 'test-results/screenshots/recovery-kit-set-aside.png', fullPage: true })
  // The name sealed inside the file wins over the name it was stored under.
  expect(await readFile(join(files, 'recovered', 'keys', 'note.txt'))).toEqual(note)
})
