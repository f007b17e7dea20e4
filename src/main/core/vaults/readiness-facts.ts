// What readiness needs beyond the vault itself: the active service as readiness sees it (trial or
// not, mail, extensions, where credits come from) and, per vault, the guardians' answers, the
// practice run and the kits made on this device. Polling reads a vault's facts at most every hour;
// an action, or the window shown, reads them again at once.
import { isMissingExtension, type VaultApiClient } from '../../../service-client'
import { isPubliclyReachable } from '../../../service-client/service-address'
import type { Guardian, Rehearsal, ServiceInfo } from '../../../shared/api'
import type { ServiceSummary } from '../../../shared/ipc/vault-types'
import type { ConnectionSummary } from '../connections'
import type { GuardianKits } from './guardian-kits'
import type { ReadinessInput } from './vault-readiness'

export interface VaultFacts {
  guardians: ReadinessInput['guardians']
  kitChecks: ReadinessInput['kitChecks']
  rehearsal: Rehearsal | null | 'unsupported'
  kits: ReadinessInput['kits']
  at: number
}

export interface ReadinessFactsDeps {
  now: () => number
  active: () => ConnectionSummary | undefined
  /** Whether a service address is the service on this computer. */
  isLocal: (serviceUrl: string) => boolean
  /** The active connection's client. */
  client: () => Promise<VaultApiClient>
  kits: GuardianKits
  /** A vault's facts changed (the window is told soon). */
  factsChanged: () => void
  /** The service was read again (the window and the connection status are told now). */
  serviceRead: () => void
}

/**
 * Where the owner buys credits: the operator's page the service names, if it is an http(s) address (the
 * window opens it as a link, so a javascript: or file: address from a service is never shown). Never
 * the service's own address: its root is an API that answers 404 to a browser.
 */
function creditsPage(info: ServiceInfo | null): string | null {
  const named = info?.operator?.creditsUrl
  if (typeof named !== 'string' || !URL.canParse(named)) return null
  const url = new URL(named)
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null
}

/**
 * Facts are read again at most this often from polling. They change when a guardian answers an
 * e-mail, checks a kit or a practice moves on: news for the tray's "steps left", worth an hour's wait.
 * Whatever the owner does reads them at once, and so does the window when it is shown or refreshed.
 * At 5 minutes they were most of an idle app's requests (60 of 72 an hour with 5 vaults) and of
 * what its passes allocated, which an idle process gives back only at a rare full collection
 * (bench:idle).
 */
export const FACTS_MAX_AGE_MS = 60 * 60_000

export class ReadinessFacts {
  readonly #deps: ReadinessFactsDeps
  readonly #facts = new Map<string, VaultFacts>()
  readonly #loading = new Map<string, Promise<void>>()
  #service: ServiceSummary | null = null
  #serviceLoading: Promise<void> | undefined

  constructor(deps: ReadinessFactsDeps) {
    this.#deps = deps
  }

  /** The active service as readiness sees it (re-read after a connection change or a mail test). */
  get service(): ServiceSummary | null {
    return this.#service
  }

  of(vaultId: string): VaultFacts | undefined {
    return this.#facts.get(vaultId)
  }

  /** After a connection change: nothing known of the new service or its vaults yet. */
  clear(): void {
    this.#service = null
    this.#facts.clear()
  }

  forget(vaultId: string): void {
    this.#facts.delete(vaultId)
  }

  refreshService(): Promise<void> {
    this.#serviceLoading ??= this.#readService().finally(() => {
      this.#serviceLoading = undefined
    })
    return this.#serviceLoading
  }

  async #readService(): Promise<void> {
    const active = this.#deps.active()
    if (!active) {
      this.#service = null
      return
    }
    const trial = this.#deps.isLocal(active.serviceUrl)
    let info: ServiceInfo | null = null
    try {
      info = await (await this.#deps.client()).getServiceInfo()
    } catch (error) {
      // A service without the extension is taken at its word; any other failure: try again later.
      if (!isMissingExtension(error)) return
    }
    if (this.#deps.active()?.id !== active.id) return
    const publicUrl = trial ? active.serviceUrl : (info?.publicUrl ?? active.serviceUrl)
    this.#service = {
      trial,
      publicUrl,
      reachableByOthers: !trial && isPubliclyReachable(publicUrl),
      mailConfigured: info ? info.mail.configured : null,
      lastMailTest: info?.mail.lastTest ?? null,
      extensions: info?.extensions ?? [],
      credits: { addHere: trial, buyAt: trial ? null : creditsPage(info) },
      storage: info?.storage ? { kind: info.storage.kind, permanent: info.storage.permanent === true } : null,
    }
    for (const vaultId of this.#facts.keys()) void this.refresh(vaultId, true)
    this.#deps.serviceRead()
  }

  /** Reads guardians' answers, the practice run and the kits again (after an action: force). */
  refresh(vaultId: string, force = true): Promise<void> {
    const known = this.#facts.get(vaultId)
    if (!force && known && this.#deps.now() - known.at < FACTS_MAX_AGE_MS) return Promise.resolve()
    const running = this.#loading.get(vaultId)
    if (running && !force) return running
    const loading = (running ?? Promise.resolve())
      .then(() => this.#read(vaultId))
      .catch((error: unknown) => console.warn(`[vault-desktop] could not read ${vaultId}:`, error))
      .finally(() => {
        if (this.#loading.get(vaultId) === loading) this.#loading.delete(vaultId)
      })
    this.#loading.set(vaultId, loading)
    return loading
  }

  async #read(vaultId: string): Promise<void> {
    if (!this.#service) await this.refreshService()
    const previous = this.#facts.get(vaultId)
    const client = this.#deps.client()
    const listed = client.then((c) => c.listGuardians(vaultId))
    const guardians = listed.then(
      (list) => this.#fromGuardians(list),
      (error: unknown) =>
        isMissingExtension(error)
          ? { guardians: null, kitChecks: null }
          : { guardians: previous?.guardians ?? null, kitChecks: previous?.kitChecks ?? null },
    )
    const rehearsal: Promise<VaultFacts['rehearsal']> = this.#service?.extensions.includes('rehearsal')
      ? client.then((c) => c.getRehearsal(vaultId)).catch(() => previous?.rehearsal ?? null)
      : Promise.resolve('unsupported')
    const kits = this.#deps.kits.list(vaultId).then((list) => ({
      total: list.length,
      handedOver: list.filter((k) => k.handedOver).length,
      splitCreatedAt: list[0]?.createdAt ?? null,
    }))
    const facts: VaultFacts = {
      ...(await guardians),
      rehearsal: await rehearsal,
      kits: await kits,
      at: this.#deps.now(),
    }
    this.#keep(vaultId, facts)
  }

  /** The window and tray are told only of news: a read that found the same facts costs them nothing. */
  #keep(vaultId: string, facts: VaultFacts): void {
    const previous = this.#facts.get(vaultId)
    this.#facts.set(vaultId, facts)
    if (!previous || JSON.stringify({ ...previous, at: 0 }) !== JSON.stringify({ ...facts, at: 0 }))
      this.#deps.factsChanged()
  }

  /** A guardian list the window just read from the service: readiness agrees with it at once. */
  noteGuardians(vaultId: string, list: readonly Guardian[]): void {
    const facts = this.#facts.get(vaultId)
    if (facts) this.#keep(vaultId, { ...facts, ...this.#fromGuardians(list) })
  }

  /** Guardians' answers, and each one's kit check from a service that offers them (absent elsewhere). */
  #fromGuardians(list: readonly Guardian[]): Pick<VaultFacts, 'guardians' | 'kitChecks'> {
    return {
      guardians: {
        accepted: list.filter((g) => g.status === 'accepted').length,
        pending: list.filter((g) => g.status === 'pending').length,
        declined: list.filter((g) => g.status === 'declined').length,
      },
      kitChecks: this.#service?.extensions.includes('kit-check')
        ? list.map((g) => ({ name: g.name, kitCheck: g.kitCheck ?? null }))
        : null,
    }
  }

  /** Remembers a rehearsal the owner just read or changed, so readiness shows it at once. */
  noteRehearsal(vaultId: string, rehearsal: Rehearsal | null): void {
    const facts = this.#facts.get(vaultId)
    if (facts) this.#facts.set(vaultId, { ...facts, rehearsal })
    this.#deps.factsChanged()
  }
}
