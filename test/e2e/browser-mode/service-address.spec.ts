// A service address typed the way people write it, without http://: the first-run form and the
// "Connect another service" form both accept "127.0.0.1:<port>" and connect to the real local service.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, type Page, test } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'

test.describe.configure({ mode: 'serial' })

let app: BrowserModeApp
let service: RunningService
let serviceDir: string
let page: Page
let port: string
let accountId: string
let humanKey: string
const pageErrors: string[] = []

test.beforeAll(async ({ browser }) => {
  serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-address-'))
  service = await startService({ dataDir: serviceDir, port: 0 })
  port = new URL(service.url).port
  const account = await service.admin.createAccount({ email: 'address-owner@example.com' })
  accountId = account.accountId
  humanKey = account.apiKey
  await service.admin.createVault({ account: accountId, preset: 'standard' })
  app = await startBrowserModeApp()
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
  page.on('pageerror', (error) => pageErrors.push(error.message))
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await service?.close()
  await rm(serviceDir, { recursive: true, force: true })
})

test('first run: 127.0.0.1:<port> without a scheme connects', async () => {
  await page.goto(app.url)
  await page.getByLabel('Service address').fill(`127.0.0.1:${port}`)
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('vault-card')).toHaveCount(1)
})

test('settings: another connection typed as localhost:<port> is stored with http://', async () => {
  const otherKey = (await service.admin.createKey({ account: accountId, kind: 'agent' })).apiKey
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('button', { name: 'Connect another service…' }).click()
  await page.locator('#add-url').fill(`localhost:${port}`)
  await page.locator('#add-key').fill(otherKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  const inUse = page.getByTestId('connection').filter({ hasText: 'In use' })
  await expect(inUse).toContainText('agent key')
  await expect(inUse).toContainText(`http://localhost:${port}`)
  expect(pageErrors).toEqual([])
})
