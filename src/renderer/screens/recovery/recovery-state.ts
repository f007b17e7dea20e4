// What the Recovery screen holds while the heir works through it: where the encrypted files come from,
// the kits typed in (each with what its check said), where to save, and the last run's outcome. A
// reducer in the screen, not a store: the kits' words are secrets, and go when the screen closes.
import type {
  HeirVaultFiles,
  RecoveryProgress,
  RecoveryReport,
  ShareCheck,
} from '../../../shared/ipc/vault-types'

export interface ShareEntry {
  id: number
  text: string
  check?: ShareCheck
  error?: unknown
}

/** Where the encrypted files come from: the vault service (heir e-mail) or files on this computer. */
export type Source = 'service' | 'files'

export type Field = 'serviceUrl' | 'accessToken' | 'vaultId' | 'inputs' | 'outputDir'

export interface RecoveryState {
  source: Source
  serviceUrl: string
  accessToken: string
  vaultId: string
  /** .vault files on this computer, one path a line. */
  inputs: string
  outputDir: string
  shares: ShareEntry[]
  listing?: HeirVaultFiles
  progress?: RecoveryProgress
  report?: RecoveryReport
  finishedAt?: number
}

export type RecoveryEvent =
  | { type: 'source'; source: Source }
  | { type: 'field'; field: Field; value: string }
  | { type: 'share'; id: number; patch: Partial<Omit<ShareEntry, 'id'>> }
  /** A kit's check came back: it names its vault, filled in for whoever has not copied it. */
  | { type: 'share-checked'; id: number; check: ShareCheck }
  | { type: 'add-share' }
  | { type: 'remove-share'; id: number }
  | { type: 'listing'; listing: HeirVaultFiles | undefined }
  | { type: 'picked'; kind: 'files' | 'output-folder'; paths: string[] }
  | { type: 'recovery-started' }
  | { type: 'progress'; progress: RecoveryProgress }
  | { type: 'recovered'; report: RecoveryReport; at: number }

let nextShareId = 1
const emptyShare = (): ShareEntry => ({ id: nextShareId++, text: '' })

export function initialRecovery(): RecoveryState {
  return {
    source: 'service',
    serviceUrl: '',
    accessToken: '',
    vaultId: '',
    inputs: '',
    outputDir: '',
    shares: [emptyShare()],
  }
}

export function recoveryReducer(state: RecoveryState, event: RecoveryEvent): RecoveryState {
  const patchShare = (id: number, patch: Partial<ShareEntry>) =>
    state.shares.map((s) => (s.id === id ? { ...s, ...patch } : s))
  switch (event.type) {
    case 'source':
      return { ...state, source: event.source }
    case 'field':
      return { ...state, [event.field]: event.value }
    case 'share':
      return { ...state, shares: patchShare(event.id, event.patch) }
    case 'share-checked': {
      const { check } = event
      const named = check.ok && check.vaultId && !state.vaultId.trim() ? check.vaultId : state.vaultId
      return { ...state, vaultId: named, shares: patchShare(event.id, { check, error: undefined }) }
    }
    case 'add-share':
      return { ...state, shares: [...state.shares, emptyShare()] }
    case 'remove-share':
      return { ...state, shares: state.shares.filter((s) => s.id !== event.id) }
    case 'listing':
      return { ...state, listing: event.listing }
    case 'picked':
      return event.kind === 'files'
        ? { ...state, inputs: event.paths.join('\n') }
        : { ...state, outputDir: event.paths[0] ?? '' }
    case 'recovery-started':
      return { ...state, report: undefined, finishedAt: undefined, progress: undefined }
    case 'progress':
      return { ...state, progress: event.progress }
    case 'recovered':
      return { ...state, report: event.report, finishedAt: event.at }
  }
}

/** The kits that read, and what they add up to, as the recovery will combine them. */
export interface KitsInHand {
  valid: ShareEntry[]
  threshold: number | undefined
  total: number | undefined
  /** Vault fingerprints the kits name: more than one means kits of another vault are among them. */
  fingerprints: string[]
  mixedVaults: boolean
  /** Kits per split (set of kits). */
  perSet: Map<string | undefined, number>
  mixedSets: boolean
  enough: boolean
  /** Practice kits make the whole run a practice: only the practice file, never the vault. */
  practice: boolean
}

export function kitsInHand(shares: ShareEntry[], source: Source): KitsInHand {
  const valid = shares.filter((s) => s.check?.ok)
  const threshold = valid[0]?.check?.threshold
  const total = valid[0]?.check?.shares
  // Kits of another vault are not an older set of this one: named as such, as the command line does.
  const fingerprints = [...new Set(valid.map((s) => s.check?.vaultFingerprint).filter(Boolean))] as string[]
  const mixedVaults = fingerprints.length > 1
  const perSet = new Map<string | undefined, number>()
  for (const s of valid) perSet.set(s.check?.splitId, (perSet.get(s.check?.splitId) ?? 0) + 1)
  const mixedSets = !mixedVaults && perSet.size > 1
  // As the recovery combines them: one set with enough kits is enough; the others are left out.
  const enough = !mixedVaults && !!threshold && [...perSet.values()].some((count) => count >= threshold)
  const practice = source === 'service' && valid.some((s) => s.check?.practiceUntil)
  return { valid, threshold, total, fingerprints, mixedVaults, perSet, mixedSets, enough, practice }
}
