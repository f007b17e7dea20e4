// Check-in when the owner unlocks the computer (optional, off by default). It goes through an
// sk_agent_ key, which the service lets read and check in only: never the owner's full key. Read still
// means file names, guardians' and heirs' e-mail addresses and the encrypted files, and a check-in puts the
// release off, so the key is kept in the secret store and revoked where the app can when this is turned off. Credits are not spent on every unlock: a vault is
// checked in at most once per check-in period, and only once more than half of the period has passed
// since its last check-in; never a vault that is releasing or released, nor one without a dead man's
// switch. Decisions are pure functions of the time; the runner reads each vault fresh with the agent key.
import { join } from 'node:path'
import type { VaultApiClient, VaultDetails } from '../../../service-client'
import { VaultApiError } from '../../../service-client'
import { CHECK_IN_FREQUENCY_DAYS, type CheckInFrequency, KEY_PREFIX } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { ActivityEntry } from '../../../shared/ipc/vault-types'
import { JsonFileWriter, readJsonFile } from '../storage/json-file'
import type { SecretStore } from '../storage/secret-store'

const DAY_MS = 86_400_000

export type UnlockSkipReason =
  | 'not-active'
  | 'no-dead-mans-switch'
  | 'no-deadline'
  | 'recently-checked-in'
  | 'already-this-period'

/** The latest check-in on unlock: when (this device's clock) and the deadline it set (the service's). */
export interface UnlockMark {
  at: number
  due: number
}

export type UnlockDecision = { checkIn: true } | { checkIn: false; reason: UnlockSkipReason }

export interface UnlockVaultFacts {
  state: VaultDetails['state']
  releaseTrigger: VaultDetails['releaseTrigger'] | null | undefined
  checkInFrequency: CheckInFrequency | null | undefined
  nextCheckInDue: string | null | undefined
}

/**
 * Whether unlocking at `now` should check the vault in. The period in progress started at the last
 * check-in, which the service's deadline gives (due - period) whichever device made it.
 * `lastUnlock`: when this device last checked in on unlock and the deadline that set. A deadline read
 * that is earlier was read before that check-in: its period has had its check-in already. And by this
 * device's own clock, too, half a period must pass between two check-ins on unlock (a service whose
 * clock differs from this computer's cannot make it check in on every unlock).
 */
export function decideUnlockCheckIn(
  vault: UnlockVaultFacts,
  now: number,
  lastUnlock?: UnlockMark,
): UnlockDecision {
  if (vault.state !== 'active') return { checkIn: false, reason: 'not-active' }
  if (vault.releaseTrigger !== 'dead_man_switch' || !vault.checkInFrequency) {
    return { checkIn: false, reason: 'no-dead-mans-switch' }
  }
  const due = vault.nextCheckInDue ? Date.parse(vault.nextCheckInDue) : Number.NaN
  if (!Number.isFinite(due)) return { checkIn: false, reason: 'no-deadline' }
  const periodMs = CHECK_IN_FREQUENCY_DAYS[vault.checkInFrequency] * DAY_MS
  const periodStart = due - periodMs
  if (lastUnlock && due < lastUnlock.due) {
    return { checkIn: false, reason: 'already-this-period' }
  }
  if (now - periodStart <= periodMs / 2) return { checkIn: false, reason: 'recently-checked-in' }
  if (lastUnlock && now - lastUnlock.at <= periodMs / 2)
    return { checkIn: false, reason: 'recently-checked-in' }
  return { checkIn: true }
}

// ---- the agent key ----

export class AgentKeyError extends AppError {
  override readonly name = 'AgentKeyError'
  constructor(userMessage: string) {
    super({ code: 'AGENT_KEY_REFUSED', userMessage })
  }
}

/** The pasted key as the service's dashboard gives it, or an error saying what to paste instead. */
export function checkAgentKey(input: string): string {
  const key = input.trim()
  if (key.startsWith(KEY_PREFIX.human)) {
    throw new AgentKeyError(
      'This is a full-access key (it starts with sk_human_): kept for unlocking, it could change or delete the vault. Create a read-and-check-in key (it starts with sk_agent_) in the dashboard settings of your Vault Service and paste that one. Nothing was stored.',
    )
  }
  if (!key.startsWith(KEY_PREFIX.agent) || key.length < 16 || /\s/.test(key)) {
    throw new AgentKeyError(
      'This does not look like a read-and-check-in key: it should start with sk_agent_. Copy it again from the dashboard settings of your Vault Service. Nothing was stored.',
    )
  }
  return key
}

export interface AgentKeyInfo {
  last4: string
  origin: 'created' | 'pasted'
  addedAt: string
}

interface AgentKeysFile {
  version: 1
  /** connectionId -> what Settings shows of its agent key (the key itself is in the secret store). */
  keys: Record<string, AgentKeyInfo>
}

export function agentKeyAccount(connectionId: string): string {
  return `agent-key:${connectionId}`
}

/** The agent keys of this device, one per connection: the secret in the store, its summary in a file. */
export class AgentKeys {
  readonly #writer: JsonFileWriter<AgentKeysFile>
  #state: AgentKeysFile

  private constructor(
    file: string,
    state: AgentKeysFile,
    readonly store: SecretStore,
  ) {
    this.#writer = new JsonFileWriter(file)
    this.#state = state
  }

  static async open(userDataDir: string, store: SecretStore): Promise<AgentKeys> {
    const file = join(userDataDir, 'agent-keys.json')
    const state = await readJsonFile<AgentKeysFile>(file, { version: 1, keys: {} })
    return new AgentKeys(file, { version: 1, keys: state.keys ?? {} }, store)
  }

  info(connectionId: string): AgentKeyInfo | undefined {
    return this.#state.keys[connectionId]
  }

  /** The key itself, when the store still holds it (a memory store forgets it at restart). */
  async get(connectionId: string): Promise<string | null> {
    if (!this.#state.keys[connectionId]) return null
    return this.store.get(agentKeyAccount(connectionId))
  }

  async set(
    connectionId: string,
    apiKey: string,
    origin: AgentKeyInfo['origin'],
    now: number,
  ): Promise<void> {
    await this.store.set(agentKeyAccount(connectionId), apiKey)
    this.#state = {
      ...this.#state,
      keys: {
        ...this.#state.keys,
        [connectionId]: { last4: apiKey.slice(-4), origin, addedAt: new Date(now).toISOString() },
      },
    }
    await this.#writer.write(this.#state)
  }

  async remove(connectionId: string): Promise<void> {
    await this.store.delete(agentKeyAccount(connectionId))
    const { [connectionId]: _gone, ...keys } = this.#state.keys
    this.#state = { ...this.#state, keys }
    await this.#writer.write(this.#state)
  }

  flush(): Promise<void> {
    return this.#writer.flush()
  }
}

// ---- the run ----

export const UNLOCK_NOTE = 'Checked in automatically when the owner unlocked their computer (Vault Desktop).'

export interface UnlockCandidate {
  vaultId: string
  /** What this device knows beyond the service's answer (frequency, trigger kept on this device). */
  known?: Partial<UnlockVaultFacts>
}

export type UnlockOutcome =
  | { vaultId: string; checkedIn: true; nextCheckInDue: string; daysRemaining: number; entry?: ActivityEntry }
  | { vaultId: string; checkedIn: false; reason: UnlockSkipReason }
  | { vaultId: string; checkedIn: false; reason: 'failed'; error: string; entry?: ActivityEntry }

export interface UnlockRunDeps {
  now(): number
  /** The client of the agent key of the active connection, or null when this device holds none. */
  agentClient(): Promise<VaultApiClient | null>
  /** The vaults of the active connection. */
  candidates(): UnlockCandidate[]
  /** The latest check-in on unlock of the vault, if any. */
  lastUnlock(vaultId: string): UnlockMark | undefined
  /** Records a check-in made (history, deadline on this device, the window). */
  checkedIn(
    vault: VaultDetails,
    result: { nextCheckInDue: string; daysRemaining: number },
  ): ActivityEntry | undefined
  /** Records a check-in that did not go through and tells the owner. */
  failed(vaultId: string, message: string): ActivityEntry | undefined
}

function failureText(error: unknown): string {
  if (error instanceof VaultApiError && (error.status === 401 || error.status === 403)) {
    return 'The service did not accept the read-and-check-in key kept for unlocking (it may have been revoked). Turn "Check in when I unlock this computer" off and on again in Settings, with a new sk_agent_ key; meanwhile check in from the window.'
  }
  if (error instanceof AppError) return error.userMessage
  return `The service could not be reached (${error instanceof Error ? error.message : String(error)}). Check in from the window before the deadline.`
}

/** One pass over the vaults after an unlock; never throws. Concurrent unlocks share one pass. */
export class UnlockCheckIn {
  #running: Promise<UnlockOutcome[]> | undefined

  constructor(private readonly deps: UnlockRunDeps) {}

  run(): Promise<UnlockOutcome[]> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  async #run(): Promise<UnlockOutcome[]> {
    const candidates = this.deps.candidates()
    if (candidates.length === 0) return []
    // Decide on what this device knows first: most unlocks need no request at all. What it does not
    // know (no deadline kept here) and every yes is asked of the service before checking in.
    const worth: UnlockCandidate[] = []
    const outcomes: UnlockOutcome[] = []
    for (const c of candidates) {
      const decision = c.known ? this.#decide(c.vaultId, c.known) : undefined
      if (!decision || decision.checkIn || decision.reason === 'no-deadline') worth.push(c)
      else outcomes.push({ vaultId: c.vaultId, checkedIn: false, reason: decision.reason })
    }
    if (worth.length === 0) return outcomes
    let client: VaultApiClient | null
    try {
      client = await this.deps.agentClient()
    } catch (error) {
      for (const c of worth) {
        const message = failureText(error)
        outcomes.push({
          vaultId: c.vaultId,
          checkedIn: false,
          reason: 'failed',
          error: message,
          entry: this.deps.failed(c.vaultId, message),
        })
      }
      return outcomes
    }
    if (!client) return outcomes
    for (const c of worth) outcomes.push(await this.#one(client, c))
    return outcomes
  }

  #decide(vaultId: string, facts: Partial<UnlockVaultFacts>): UnlockDecision {
    return decideUnlockCheckIn(
      {
        state: facts.state ?? 'active',
        releaseTrigger: facts.releaseTrigger,
        checkInFrequency: facts.checkInFrequency,
        nextCheckInDue: facts.nextCheckInDue,
      },
      this.deps.now(),
      this.deps.lastUnlock(vaultId),
    )
  }

  async #one(client: VaultApiClient, candidate: UnlockCandidate): Promise<UnlockOutcome> {
    const { vaultId } = candidate
    try {
      // The service's word on the state and the deadline (a release may have started meanwhile).
      const vault = await client.getVault(vaultId)
      const decision = this.#decide(vaultId, {
        state: vault.state,
        releaseTrigger: vault.releaseTrigger ?? candidate.known?.releaseTrigger,
        checkInFrequency: vault.checkInFrequency ?? candidate.known?.checkInFrequency,
        nextCheckInDue: vault.nextCheckInDue ?? candidate.known?.nextCheckInDue,
      })
      if (!decision.checkIn) return { vaultId, checkedIn: false, reason: decision.reason }
      const result = await client.checkIn(vaultId, UNLOCK_NOTE)
      const entry = this.deps.checkedIn(vault, result)
      return {
        vaultId,
        checkedIn: true,
        nextCheckInDue: result.nextCheckInDue,
        daysRemaining: result.daysRemaining,
        ...(entry ? { entry } : {}),
      }
    } catch (error) {
      const message = failureText(error)
      const entry = this.deps.failed(vaultId, message)
      return { vaultId, checkedIn: false, reason: 'failed', error: message, ...(entry ? { entry } : {}) }
    }
  }
}
