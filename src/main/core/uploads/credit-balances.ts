// The vault balances the queue checks uploads against before a byte is sent: read from the service at
// most every 15 s, lowered by each charge, and credits held for uploads in flight so that parallel
// uploads do not overdraw. A refusal forgets the balance: the owner may add credits before retrying.
import type { VaultApiClient } from '../../../service-client'

const BALANCE_TTL_MS = 15_000

export class CreditBalances {
  readonly #balances = new Map<string, { credits: number; at: number }>()
  readonly #reserved = new Map<string, number>()

  constructor(private readonly now: () => number) {}

  /** The vault's balance, from the service unless read in the last 15 s. */
  async balance(client: VaultApiClient, vaultId: string, signal: AbortSignal): Promise<number> {
    const cached = this.#balances.get(vaultId)
    if (cached && this.now() - cached.at < BALANCE_TTL_MS) return cached.credits
    const vault = await client.getVault(vaultId, signal)
    this.seen(vaultId, vault.creditsBalance)
    return vault.creditsBalance
  }

  /** A balance the service just told (the estimate reads it anyway). */
  seen(vaultId: string, credits: number): void {
    this.#balances.set(vaultId, { credits, at: this.now() })
  }

  /** Read again next time. */
  forget(vaultId: string): void {
    this.#balances.delete(vaultId)
  }

  /** The cached balance follows a charge. */
  charged(vaultId: string, credits: number): void {
    const cached = this.#balances.get(vaultId)
    if (cached) cached.credits -= credits
  }

  /** Credits held by uploads in flight to the vault. */
  reserved(vaultId: string): number {
    return this.#reserved.get(vaultId) ?? 0
  }

  /** Holds credits for an upload in flight; the returned function lets them go. */
  reserve(vaultId: string, credits: number): () => void {
    this.#reserved.set(vaultId, this.reserved(vaultId) + credits)
    return () => this.#reserved.set(vaultId, Math.max(0, this.reserved(vaultId) - credits))
  }
}
