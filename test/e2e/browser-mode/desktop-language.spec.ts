// The words the core writes itself (notices of finished backups, releases, claims) follow the system's
// language in browser mode as in Electron: on a Spanish system the notice is Spanish, marked lang="es"
// inside the English window so a screen reader reads it in Spanish.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from '../support/fixtures'
import { backUpPath } from '../support/page-steps'

test.use({ appOptions: { systemLocale: 'es_ES.UTF-8' } })

test('on a Spanish system, a finished backup’s notice is in Spanish', async ({
  ownerKitSaved: _,
  page,
  workDir,
}) => {
  const letter = join(workDir, 'carta.txt')
  await writeFile(letter, 'Querida familia')
  await backUpPath(page, letter, '1 stored')
  const notice = page.getByTestId('toast').filter({ hasText: 'Copia terminada: 1 archivo' })
  await expect(notice).toBeVisible({ timeout: 30_000 })
  await expect(notice.locator('strong')).toHaveAttribute('lang', 'es')
  await page.screenshot({ path: 'test-results/screenshots/desktop-language-es.png' })
  await expect(page.getByTestId('toast').filter({ hasText: 'Backup finished' })).toHaveCount(0)
})
