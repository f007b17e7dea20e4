// Registers the current split's kit check codes with the service (extension kit-check), so a guardian
// can confirm they still hold their kit. Only hashes leave this computer (GuardianKits builds them from
// the sealed words); a service without the extension is told nothing. A failed attempt is tried again
// the next time the guardians are listed, until the service has taken the split.
import type { KitCheckRegistered, KitCheckRegistration } from '../../../shared/api'
import type { GuardianKits } from './guardian-kits'

export interface KitCheckRegistrationDeps {
  kits: GuardianKits
  /** Whether the active service lists the 'kit-check' extension. */
  offersKitChecks: () => Promise<boolean>
  register: (vaultId: string, registration: KitCheckRegistration) => Promise<KitCheckRegistered>
}

export type KitCheckRegistrationOutcome = 'registered' | 'nothing-to-register' | 'not-offered'

export async function registerKitChecks(
  deps: KitCheckRegistrationDeps,
  vaultId: string,
  vaultKey: Uint8Array,
): Promise<KitCheckRegistrationOutcome> {
  const registration = await deps.kits.kitCheckRegistration(vaultId, vaultKey)
  if (!registration || registration.guardians.length === 0) return 'nothing-to-register'
  if (!(await deps.offersKitChecks())) return 'not-offered'
  await deps.register(vaultId, registration)
  await deps.kits.markKitChecksRegistered(vaultId, registration.split)
  return 'registered'
}
