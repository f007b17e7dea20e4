// The Vault Service client callers use: one object per service address and key, its methods grouped
// by endpoint (vaults, people, assets, release, service, heir access), every request made by the
// transport under one HTTP policy.
import type { Readable } from 'node:stream'
import type {
  ApiPrefix,
  Asset,
  AssetListMeta,
  AssetListQuery,
  CancelResult,
  CheckInResult,
  Guardian,
  GuardianRemoved,
  Heir,
  HeirRemoved,
  KeyKind,
  KeyRevoked,
  KitCheckRegistered,
  KitCheckRegistration,
  MailTestResult,
  PersonRequest,
  Rehearsal,
  RehearsalRequest,
  RehearsalTicket,
  ReleaseConfig,
  ReleaseConfigRequest,
  ServiceInfo,
  UploadedAsset,
} from '../shared/api'
import { KEY_PREFIX } from '../shared/api'
import * as assets from './assets'
import * as heirAccess from './heir-access'
import * as kitChecks from './kit-checks'
import * as people from './people'
import * as release from './release'
import * as service from './service'
import { type ApiClientOptions, type Page, Transport } from './transport'
import * as vaults from './vaults'

export function keyKindOf(apiKey: string): KeyKind | undefined {
  if (apiKey.startsWith(KEY_PREFIX.human)) return 'human'
  if (apiKey.startsWith(KEY_PREFIX.agent)) return 'agent'
  return undefined
}

export class VaultApiClient {
  readonly baseUrl: string
  readonly keyKind: KeyKind | undefined
  readonly #t: Transport

  constructor(options: ApiClientOptions) {
    this.#t = new Transport(options)
    this.baseUrl = this.#t.baseUrl
    this.keyKind = keyKindOf(options.apiKey)
  }

  /** The prefix in use once known (`/api`, or `/v1` on services that 404 the vault list under /api). */
  get prefix(): ApiPrefix | undefined {
    return this.#t.prefix
  }

  // ---- vaults ----

  listVaults(signal?: AbortSignal): Promise<vaults.VaultDetails[]> {
    return vaults.listVaults(this.#t, signal)
  }

  getVault(vaultId: string, signal?: AbortSignal): Promise<vaults.VaultDetails> {
    return vaults.getVault(this.#t, vaultId, signal)
  }

  createVault(request?: vaults.CreateVaultRequest): Promise<vaults.VaultDetails> {
    return vaults.createVault(this.#t, request)
  }

  /** A null or empty name clears it. */
  renameVault(vaultId: string, name: string | null): Promise<vaults.VaultDetails> {
    return vaults.renameVault(this.#t, vaultId, name)
  }

  /** One-step check-in links in reminder e-mails, on or off (extension 'check-in-links'). */
  setCheckInLinks(vaultId: string, on: boolean): Promise<vaults.VaultDetails> {
    return vaults.setCheckInLinks(this.#t, vaultId, on)
  }

  deleteVault(vaultId: string): Promise<{ deleted: string }> {
    return vaults.deleteVault(this.#t, vaultId)
  }

  // ---- guardians and heirs ----

  addGuardian(vaultId: string, person: PersonRequest): Promise<Guardian> {
    return people.addGuardian(this.#t, vaultId, person)
  }

  removeGuardian(vaultId: string, guardianId: string): Promise<GuardianRemoved> {
    return people.removeGuardian(this.#t, vaultId, guardianId)
  }

  listGuardians(vaultId: string): Promise<Guardian[]> {
    return people.listGuardians(this.#t, vaultId)
  }

  addHeir(vaultId: string, person: PersonRequest): Promise<Heir> {
    return people.addHeir(this.#t, vaultId, person)
  }

  removeHeir(vaultId: string, heirId: string): Promise<HeirRemoved> {
    return people.removeHeir(this.#t, vaultId, heirId)
  }

  listHeirs(vaultId: string): Promise<Heir[]> {
    return people.listHeirs(this.#t, vaultId)
  }

  /** A split's kit check code hashes (extension kit-check); never the kits' words. */
  registerKitChecks(vaultId: string, registration: KitCheckRegistration): Promise<KitCheckRegistered> {
    return kitChecks.registerKitChecks(this.#t, vaultId, registration)
  }

  // ---- assets ----

  listAssets(vaultId: string, query?: AssetListQuery): Promise<Page<Asset[], AssetListMeta>> {
    return assets.listAssets(this.#t, vaultId, query)
  }

  /** Every asset of a vault, page by page. */
  listAllAssets(vaultId: string): Promise<Asset[]> {
    return assets.listAllAssets(this.#t, vaultId)
  }

  uploadAsset(request: assets.UploadAssetRequest): Promise<UploadedAsset> {
    return assets.uploadAsset(this.#t, request)
  }

  /** Encrypted content of an asset as a stream (decrypt with the vault key). */
  async downloadAsset(vaultId: string, assetId: string, signal?: AbortSignal): Promise<Readable> {
    return (await assets.downloadAssetFrom(this.#t, vaultId, assetId, 0, signal)).stream
  }

  /**
   * Encrypted content from byte `start` on (resuming a download). `partial` says whether the service
   * honoured the range (206); when it did not, the stream holds the whole content from byte 0. With
   * `expectedBytes` (the listed size), the stream fails once the service sends more than that.
   */
  downloadAssetFrom(
    vaultId: string,
    assetId: string,
    start: number,
    signal?: AbortSignal,
    expectedBytes?: number,
  ): Promise<{ stream: Readable; partial: boolean }> {
    return assets.downloadAssetFrom(this.#t, vaultId, assetId, start, signal, expectedBytes)
  }

  /** Takes a file out of the vault (extension 'asset-delete'); a permanent store keeps the blob. */
  deleteAsset(
    vaultId: string,
    assetId: string,
    signal?: AbortSignal,
  ): Promise<{ deleted: string; contentRemoved: boolean }> {
    return assets.deleteAsset(this.#t, vaultId, assetId, signal)
  }

  // ---- release and rehearsals ----

  configureRelease(vaultId: string, request: ReleaseConfigRequest): Promise<ReleaseConfig> {
    return release.configureRelease(this.#t, vaultId, request)
  }

  checkIn(vaultId: string, note?: string): Promise<CheckInResult> {
    return release.checkIn(this.#t, vaultId, note)
  }

  cancelRelease(vaultId: string): Promise<CancelResult> {
    return release.cancelRelease(this.#t, vaultId)
  }

  /** Manual release (local service extension); answers with the vault, now releasing. */
  startRelease(vaultId: string): Promise<vaults.VaultDetails> {
    return release.startRelease(this.#t, vaultId)
  }

  startRehearsal(vaultId: string, request: RehearsalRequest): Promise<Rehearsal> {
    return release.startRehearsal(this.#t, vaultId, request)
  }

  getRehearsal(vaultId: string): Promise<Rehearsal | null> {
    return release.getRehearsal(this.#t, vaultId)
  }

  endRehearsal(vaultId: string): Promise<Rehearsal> {
    return release.endRehearsal(this.#t, vaultId)
  }

  // ---- the service (local extensions) ----

  getServiceInfo(): Promise<ServiceInfo> {
    return service.getServiceInfo(this.#t)
  }

  sendTestMail(): Promise<MailTestResult> {
    return service.sendTestMail(this.#t)
  }

  /** Revokes the key this client was made with (extension key-revoke). */
  revokeOwnKey(): Promise<KeyRevoked> {
    return service.revokeOwnKey(this.#t)
  }

  // ---- with an heir's practice code ----

  /** With a practice heir token: the rehearsal it belongs to (404 or 403 for any other key). */
  getRehearsalTicket(): Promise<RehearsalTicket> {
    return heirAccess.getRehearsalTicket(this.#t)
  }

  reportRehearsal(proof: string): Promise<{ passed: boolean }> {
    return heirAccess.reportRehearsal(this.#t, proof)
  }

  /** Keeps the key out of console.log / util.inspect of the client. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `VaultApiClient { baseUrl: '${this.#t.displayAddress}', keyKind: ${this.keyKind ?? 'unknown'}, prefix: ${this.prefix ?? 'undetected'} }`
  }

  toJSON(): { baseUrl: string; keyKind: KeyKind | undefined; prefix: ApiPrefix | undefined } {
    return { baseUrl: this.baseUrl, keyKind: this.keyKind, prefix: this.prefix }
  }
}
