// The Vault Service client (vault-api-v2 plus the local service's extensions); importers use
// './api-client'. transport.ts holds the one HTTP policy every request follows.
export type { UploadAssetRequest } from './assets'
export { keyKindOf, VaultApiClient } from './client'
export {
  type ApiOperation,
  isMissingExtension,
  VaultApiError,
  type VaultApiErrorCode,
  type VaultApiErrorInit,
} from './errors'
export { checkKitByLink, type GuardianLink, parseGuardianLink } from './kit-checks'
export { type ApiClientOptions, type Page, parseRetryAfter, type RetryNotice } from './transport'
export type { CreateVaultRequest, VaultDetails } from './vaults'
