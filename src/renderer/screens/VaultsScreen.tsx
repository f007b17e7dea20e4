import { type FormEvent, useState } from 'react'
import { EXTENSION_LIMITS, type SssPreset } from '../../shared/api'
import { AppError } from '../../shared/app-error'
import type { VaultView } from '../../shared/ipc/vault-types'
import { ErrorNotice } from '../components/ErrorNotice'
import { ReadinessChip, TrialNote } from '../components/Readiness'
import { ReadOnlyNote } from '../components/ReadOnlyNote'
import { StateBadge } from '../components/StateBadge'
import { UntrustedName } from '../components/UntrustedName'
import { useAction } from '../components/use-action'
import { TRIGGER_TEXT } from '../display/release-text'
import { daysLeftToCancel, describeDeadline } from '../display/units'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { FirstRunScreen } from './FirstRunScreen'
import { VaultScreen } from './VaultScreen'

export function VaultsScreen() {
  const status = useConnectionStore((s) => s.status)
  const vaultId = useNavigationStore((s) => s.vaultId)
  if (!status) return null
  if (!status.active) return <FirstRunScreen />
  if (vaultId) return <VaultScreen vaultId={vaultId} />
  return <VaultList />
}

function VaultList() {
  const { snapshot, refresh, refreshing } = useVaultsStore()
  const active = useConnectionStore((s) => s.status?.active)

  const vaults = snapshot?.vaults ?? []
  const empty = !!snapshot?.fetchedAt && !snapshot.error && vaults.length === 0
  return (
    <section className="screen" aria-labelledby="vaults-title">
      <header className="screen-header">
        <h1 id="vaults-title">{text.vaults.title}</h1>
        <div className="header-actions">
          <span className="muted small">
            {active?.label} · {active?.keyKind === 'agent' ? text.vaults.agentKey : text.vaults.ownerKey} …
            {active?.keyLast4}
          </span>
          <button
            type="button"
            className="button secondary"
            onClick={() => void refresh()}
            disabled={refreshing}
          >
            {refreshing ? text.vaults.refreshing : text.vaults.refresh}
          </button>
        </div>
      </header>
      <TrialNote />
      {snapshot?.error && (
        <ErrorNotice error={AppError.fromData(snapshot.error)} onRetry={() => void refresh()} />
      )}
      {snapshot && !snapshot.fetchedAt && !snapshot.error && <p className="muted">{text.vaults.loading}</p>}
      {empty ? (
        <div className="empty-state" data-testid="no-vaults">
          <h2>{text.vaults.firstTitle}</h2>
          <p>{text.vaults.firstNote}</p>
          <NewVaultForm first />
        </div>
      ) : (
        <>
          <ul className="vault-cards">
            {vaults.map((v) => (
              <VaultCard key={v.id} v={v} />
            ))}
          </ul>
          {snapshot?.fetchedAt && (
            <div className="panel new-vault">
              <h2>{text.vaults.newVault}</h2>
              <NewVaultForm />
            </div>
          )}
        </>
      )}
    </section>
  )
}

function NewVaultForm({ first = false }: { first?: boolean }) {
  const { canWrite, reason } = useWriteAccess()
  const openVault = useNavigationStore((s) => s.openVault)
  const [name, setName] = useState('')
  const [preset, setPreset] = useState<SssPreset>('standard')
  const creation = useAction(async () => {
    const id = await useVaultsStore.getState().create(preset, name)
    setName('')
    openVault(id)
  })
  const { busy: creating, error } = creation

  const create = (event: FormEvent) => {
    event.preventDefault()
    void creation.run()
  }

  return (
    <form
      className={first ? 'new-vault-form first' : 'new-vault-form'}
      onSubmit={create}
      aria-label={text.vaults.newVault}
    >
      <ReadOnlyNote />
      <div className="field">
        <label htmlFor="new-vault-name">
          {text.vaults.name} <span className="muted">{text.vaults.optional}</span>
        </label>
        <input
          id="new-vault-name"
          type="text"
          value={name}
          maxLength={EXTENSION_LIMITS.vaultNameMaxChars}
          placeholder={text.vaults.namePlaceholder}
          onChange={(e) => setName(e.target.value)}
          disabled={!canWrite}
        />
      </div>
      <div className="field">
        <label htmlFor="new-vault-preset">{text.vaults.guardiansNeeded}</label>
        <select
          id="new-vault-preset"
          value={preset}
          onChange={(e) => setPreset(e.target.value as SssPreset)}
          disabled={!canWrite}
        >
          <option value="standard">{text.vaults.presetStandard}</option>
          <option value="enhanced">{text.vaults.presetEnhanced}</option>
        </select>
      </div>
      <button type="submit" className="button" disabled={!canWrite || creating} title={reason ?? undefined}>
        {creating ? text.vaults.creating : text.vaults.create}
      </button>
      {error !== undefined && <ErrorNotice error={error} />}
    </form>
  )
}

function VaultCard({ v }: { v: VaultView }) {
  const openVault = useNavigationStore((s) => s.openVault)
  const now = Date.now()
  const due = v.nextCheckInDue && v.state === 'active' ? describeDeadline(v.nextCheckInDue, now) : null
  return (
    <li className={`vault-card state-${v.state}`} data-testid="vault-card">
      <div className="vault-card-head">
        <h2>
          {/* The button's ::after covers the whole card, so the card is one click target. */}
          <button type="button" className="vault-card-open" onClick={() => openVault(v.id)}>
            <UntrustedName name={v.label} />
          </button>
        </h2>
        <StateBadge state={v.state} />
      </div>
      <div className="card-readiness">
        <ReadinessChip v={v} />
      </div>
      {v.state === 'releasing' && (
        <p className="card-alarm">{text.vaults.releasingAlarm(daysLeftToCancel(v, now))}</p>
      )}
      {v.state === 'active' && v.claims && (
        <p className="card-alarm" data-testid="card-claim">
          <UntrustedName name={v.claims.lastBy} /> {text.vaults.claimAlarm(v.claims.count, v.claims.needed)}
        </p>
      )}
      <dl className="card-facts">
        <dt>{text.vaults.credits}</dt>
        <dd data-testid="vault-credits">{text.common.credits(v.creditsBalance)}</dd>
        <dt>{text.vaults.contents}</dt>
        <dd>{text.vaults.contentsCounts(v.fileCount, v.assetCount, v.guardianCount, v.heirCount)}</dd>
        <dt>{text.vaults.release}</dt>
        <dd>{v.releaseTrigger ? TRIGGER_TEXT[v.releaseTrigger].label : text.vaults.notConfigured}</dd>
        <dt>{text.vaults.nextCheckIn}</dt>
        <dd className={due?.overdue ? 'text-danger' : undefined}>{due ? due.text : text.common.notSet}</dd>
      </dl>
    </li>
  )
}
