// The window in the system's language: an heir whose browser is Spanish (es-ES) sees the Recovery
// screen in Spanish, marked lang="es", with Spanish plurals, numbers and dates, through to the
// recovered files; an owner in en-US sees every date on the vault screens in one format.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import { encodeShareWords, splitVaultKey } from '../../../src/vault-format'
import {
  DAY_MS,
  followGuardianLink,
  guardianLink,
  heirToken,
  ownerVaultKey,
  type ReleaseWorld,
  sha256File,
  startReleaseWorld,
  writeSeededFile,
} from '../../release/release-fixture'
import { expect, test as journey } from '../support/fixtures'

/** Above the bundling threshold, so it travels alone and the service lists its own size. */
const LETTER_BYTES = 4_500_000

/** A vault released to Lucía 30 days after a missed weekly check-in: the heir's way in and the letter. */
interface ReleasedToLucia {
  world: ReleaseWorld
  vaultId: string
  token: string
  kits: string[]
  letterHash: string
}

const test = journey.extend<{ releasedToLucia: ReleasedToLucia }>({
  releasedToLucia: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use) => {
      const world = await startReleaseWorld('abuela@example.com')
      const owner = await world.ownerCore()
      const vaultId = (await owner.vaults.create({ preset: 'standard' })).id
      for (const [name, email] of [
        ['Tía Carmen', 'carmen@example.com'],
        ['Dr. Osei', 'osei@example.com'],
        ['Tomás', 'tomas@example.com'],
      ] as const) {
        await owner.vaults.addGuardian(vaultId, { name, email })
        await followGuardianLink(guardianLink(await world.mail.waitFor(email), 'accept'))
      }
      await owner.vaults.addHeir(vaultId, { name: 'Lucía', email: 'lucia@example.com' })
      await owner.vaults.configureRelease(vaultId, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })
      const source = await world.tempDir('vault-e2e-es-src-')
      await writeSeededFile(join(source, 'carta.pdf'), LETTER_BYTES, 'carta')
      const letterHash = await sha256File(join(source, 'carta.pdf'))
      await owner.uploads.enqueue({ vaultId, paths: [join(source, 'carta.pdf')] })
      await owner.uploads.idle()
      const kits = (
        await splitVaultKey(await ownerVaultKey(owner, vaultId), vaultId, SSS_PRESET_SHAPE.standard)
      ).map(encodeShareWords)
      // No check-in; nobody cancels: released to the heir 30 days later.
      world.advance(7 * DAY_MS + 60_000)
      await world.service.tick()
      world.advance(30 * DAY_MS)
      await world.service.tick()
      const token = heirToken(await world.mail.waitFor('lucia@example.com'))
      await use({ world, vaultId, token, kits, letterHash })
      await world.close()
    },
    { timeout: 60_000 },
  ],
})

test.describe('an heir on a Spanish system', () => {
  test.use({ locale: 'es-ES', viewport: { width: 1180, height: 900 } })

  test('Recovery reads in Spanish, kit by kit, to the files and the date it finished', async ({
    page,
    pageErrors,
    ownApp: app,
    releasedToLucia: { world, vaultId, token, kits, letterHash },
  }) => {
    await page.goto(app.url)
    // The first screen's pointer for heirs is Spanish, and says so to screen readers.
    const pointer = page.getByTestId('heir-pointer')
    await expect(pointer).toContainText('¿Alguien le ha dejado sus archivos?')
    await expect(pointer).toHaveAttribute('lang', 'es')
    await pointer.getByRole('button', { name: 'Ir a Recuperación' }).click()

    const screen = page.locator('section.recovery')
    await expect(page.getByRole('heading', { name: 'Recuperación', level: 1 })).toBeVisible()
    await expect(screen).toHaveAttribute('lang', 'es')
    await expect(screen).toContainText('Nada de esto es urgente')
    await expect(page.getByRole('navigation').getByRole('button', { name: 'Recuperación' })).toBeVisible()

    await page.getByLabel('Dirección del servicio de bóvedas (Vault Service)').fill(world.service.url)
    await page.getByLabel('Su código de acceso personal (empieza por hk_)').fill(token)
    await page.getByLabel(/Identificador de la bóveda/).fill(vaultId)
    await page.getByRole('button', { name: 'Ver los archivos' }).click()
    // Singular, and the size with a decimal comma: 4,50 MB.
    const files = page.getByTestId('heir-files')
    // The vault's list of its files (a manifest stored alone) is not counted as a file; the name is
    // hidden from the service, so it shows only once the file is decrypted.
    await expect(files).toContainText('La bóveda contiene 1 archivo (4,50 MB en total)')
    await expect(files.getByRole('listitem')).toHaveCount(1)
    await expect(files.getByRole('listitem')).toContainText('4,50 MB')

    await expect(page.getByTestId('share-count')).toHaveText('Todavía no se ha introducido ningún kit.')
    await page.getByLabel('Kit 1').fill(kits[0]!)
    await page.getByLabel('Kit 1').blur()
    await expect(page.getByTestId('share-count')).toHaveText(
      '1 kit introducido: se necesitan 2 de 3. Pida su kit a un guardián más.',
    )
    await expect(screen.getByText(/✓ Kit 1 de 3, leído correctamente \(bóveda /)).toBeVisible()
    await expect(
      page.getByText('Primero introduzca los kits de suficientes guardianes (paso 2).'),
    ).toBeVisible()

    // A kit with a word changed: the check says so in Spanish; the core's detail is marked English.
    await page.getByRole('button', { name: 'Añadir otro kit' }).click()
    const words = kits[2]!.split(/\s+/)
    words[3] = words[3] === 'zoo' ? 'abandon' : 'zoo'
    await page.getByLabel('Kit 2').fill(words.join(' '))
    await page.getByLabel('Kit 2').blur()
    const problem = screen.getByText('No se pudo leer este kit.')
    await expect(problem).toBeVisible()
    await expect(problem.locator('span[lang="en"]')).not.toBeEmpty()

    await page.getByLabel('Kit 2').fill(kits[2]!)
    await page.getByLabel('Kit 2').blur()
    await expect(page.getByTestId('share-count')).toHaveText(
      '2 kits introducidos: suficientes para abrir los archivos (se necesitan 2 de 3).',
    )

    const outDir = join(app.userDataDir, 'Archivos recuperados')
    await page.getByLabel('Carpeta para los archivos recuperados').fill(outDir)
    await page.getByRole('button', { name: 'Recuperar los archivos' }).click()
    const report = page.getByTestId('recovery-report')
    await expect(report.getByRole('heading', { level: 3 })).toHaveText(
      `El archivo se ha recuperado y comprobado. Está en ${outDir}.`,
      { timeout: 30_000 },
    )
    await expect(report.getByRole('listitem').filter({ hasText: 'carta.pdf' })).toContainText(
      'carta.pdf: recuperado y comprobado',
    )
    // The date as Spanish writes it: day, abbreviated month in lower case, year, 24-hour time.
    const finished = await report.getByTestId('recovery-finished').textContent()
    expect(finished).toMatch(
      /^Terminada el \d{1,2} (ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic) \d{4}, \d{2}:\d{2}\.$/,
    )
    expect(await sha256File(join(outDir, 'carta.pdf'))).toBe(letterHash)
    await page.screenshot({ path: 'test-results/screenshots/recovery-spanish.png', fullPage: true })

    // Pressing it again keeps the file; the outcome is said in Spanish.
    await page.getByRole('button', { name: 'Recuperar los archivos' }).click()
    await expect(report.getByRole('listitem').filter({ hasText: 'carta.pdf' })).toContainText(
      'ya se recuperó antes; se deja como está',
      { timeout: 30_000 },
    )
    expect(pageErrors).toEqual([])
    expect((await readFile(join(outDir, 'carta.pdf'))).length).toBe(LETTER_BYTES)
  })
})

test.describe('an owner on a US-English system', () => {
  test.use({ locale: 'en-US', viewport: { width: 1280, height: 900 } })

  test('the vault screens write every date one way, the US way', async ({ page, localVault: _ }) => {
    await page.getByRole('tab', { name: 'Release settings' }).click()
    await page.getByLabel(/Dead man's switch/).check()
    await page.getByLabel('Check in').selectOption('weekly')
    await page.getByRole('button', { name: 'Save release settings' }).click()
    await expect(page.getByTestId('release-saved')).toBeVisible()
    await page.getByRole('tab', { name: 'Overview' }).click()
    await page.getByRole('button', { name: 'Check in', exact: true }).click()
    await expect(page.getByTestId('checkin-result')).toContainText('7 days from now')
    await expect(page.getByTestId('last-checkin')).not.toContainText('none yet')

    const body = (await page.locator('main').innerText()).replace(/\s+/g, ' ')
    const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)'
    // "Nov 23, 2026" and "Nov 23, 2026, 09:45 AM": the only shapes a date takes.
    const usDates = body.match(new RegExp(`${MONTH} \\d{1,2}, \\d{4}`, 'g')) ?? []
    expect(usDates.length).toBeGreaterThanOrEqual(4) // created, next due, checked in (next due), last check-in
    expect(body).not.toMatch(new RegExp(`\\d{1,2} ${MONTH} \\d{4}`)) // "23 Nov 2026"
    expect(body).not.toMatch(/\d{1,2}\/\d{1,2}\/\d{2,4}/) // "11/23/2026"
    expect(body).not.toMatch(/\d{4}-\d{2}-\d{2}T/) // an ISO timestamp
    for (const testId of ['next-due', 'last-checkin', 'checkin-result']) {
      await expect(page.getByTestId(testId)).toContainText(
        new RegExp(`${MONTH} \\d{1,2}, \\d{4}, \\d{2}:\\d{2} (AM|PM)`),
      )
    }
    await page.getByRole('button', { name: '← All vaults' }).click()
    await expect(page.getByTestId('vault-card')).toContainText('in 7 days')
  })
})
