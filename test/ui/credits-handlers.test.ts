// Credits can't release a vault by accident: an upload that would eat into the check-in reserve is
// refused unless the owner explicitly chooses to spend it. A 402 says what a check-in costs and what
// the balance is; an upload estimate states the cost and the reserve before anything is sent.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { type RunningService, startService } from '../../src/service'
import { uploadCostCredits } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'
import { encodeOwnerKitWords, encryptedLength, generateVaultKey } from '../../src/vault-format'

let service: RunningService
let backend: VaultApp
let dirs: string[]

const call = (key: keyof typeof invokeChannels, args?: unknown) =>
  dispatch(backend.handlers, invokeChannels[key].name, args)

beforeAll(async () => {
  dirs = [await mkdtemp(join(tmpdir(), 'vault-402-svc-')), await mkdtemp(join(tmpdir(), 'vault-402-app-'))]
  service = await startService({ dataDir: dirs[0]!, port: 0 })
  backend = createVaultApp({ userDataDir: dirs[1]!, mode: 'browser', version: '0', useKeychain: false })
})
afterAll(async () => {
  await backend?.close()
  await service?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

it('an upload that would leave 1 credit is refused for the reserve; spent anyway, the next check-in is a 402', async () => {
  const account = await service.admin.createAccount({ email: 'spend@example.com' })
  const { vaultId } = await service.admin.createVault({ account: account.accountId, preset: 'standard' })
  expect(await call('connectService', { serviceUrl: service.url, apiKey: account.apiKey })).toMatchObject({
    ok: true,
  })
  const words = encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId })
  expect(await call('importOwnerKit', { vaultId, words })).toMatchObject({ ok: true })
  expect(
    await call('configureRelease', { vaultId, trigger: 'dead_man_switch', checkInFrequency: 'weekly' }),
  ).toMatchObject({ ok: true })

  // 98 credits of storage (ciphertext just under 98 * 10^9 / 4650 bytes), and 1 for the vault
  // manifest that goes up after it.
  const plaintext = 21_000_000
  expect(uploadCostCredits(encryptedLength(plaintext))).toBe(98)
  const file = join(dirs[1]!, 'big.bin')
  await writeFile(file, Buffer.alloc(plaintext, 7))
  const estimate = await call('estimateUpload', { vaultId, paths: [file] })
  // Weekly check-ins for 12 months: 53 check-ins of 2 credits.
  expect(estimate).toMatchObject({
    ok: true,
    value: { credits: 99, balanceCredits: 100, enough: true, reserveCredits: 106, eatsReserve: true },
  })
  const refusedUpload = await call('queueUpload', { vaultId, paths: [file] })
  expect(refusedUpload).toMatchObject({ ok: false, error: { code: 'RESERVE_NEEDED' } })
  if (!refusedUpload.ok) expect(refusedUpload.error.message).toContain('106 kept for 12 months of check-ins')
  expect(await call('listUploads')).toMatchObject({ ok: true, value: [] })

  expect(await call('queueUpload', { vaultId, paths: [file], spendReserve: true })).toMatchObject({
    ok: true,
    value: { queued: 1 },
  })
  await expect
    .poll(
      async () => {
        const list = await call('listUploads')
        return list.ok ? (list.value as Array<{ state: string }>)[0]?.state : 'error'
      },
      { timeout: 30_000 },
    )
    .toBe('done')
  // The manifest follows the file: 1 credit left.
  await expect
    .poll(
      async () => {
        const vault = await call('refreshVault', { vaultId })
        return vault.ok ? (vault.value as { creditsBalance: number }).creditsBalance : 'error'
      },
      { timeout: 30_000 },
    )
    .toBe(1)

  const refused = await call('checkIn', { vaultId })
  expect(refused).toMatchObject({
    ok: false,
    error: { code: 'INSUFFICIENT_CREDITS', status: 402, details: { creditsNeeded: 2 } },
  })
  if (!refused.ok) expect(refused.error.message).toContain('A check-in costs 2 credits')
})
