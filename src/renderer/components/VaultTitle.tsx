import { type FormEvent, useState } from 'react'
import { EXTENSION_LIMITS } from '../../shared/api'
import type { VaultView } from '../../shared/ipc/vault-types'
import { useWriteAccess } from '../stores/connection-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { ReadinessChip } from './Readiness'
import { StateBadge } from './StateBadge'
import { UntrustedName } from './UntrustedName'
import { useAction } from './use-action'

/** The vault's name as the page title, renamed in place; its state and readiness beside it. */
export function VaultTitle({ v }: { v: VaultView }) {
  const { canWrite, reason } = useWriteAccess()
  const [editing, setEditing] = useState(false)
  const [name, setName] = useState('')
  const saving = useAction(async () => {
    await useVaultsStore.getState().rename(v.id, name)
    setEditing(false)
  })
  const { busy, error } = saving

  const start = () => {
    setName(v.name ?? '')
    saving.clearError()
    setEditing(true)
  }

  const save = (event: FormEvent) => {
    event.preventDefault()
    void saving.run()
  }

  return (
    <>
      <header className="screen-header title-with-badge">
        {editing ? (
          <form
            className="rename-form"
            onSubmit={save}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setEditing(false)
            }}
          >
            <h1 id="vault-title" className="visually-hidden">
              <UntrustedName name={v.label} />
            </h1>
            <label htmlFor="vault-name" className="visually-hidden">
              {text.vaultTitle.name}
            </label>
            <input
              id="vault-name"
              type="text"
              value={name}
              maxLength={EXTENSION_LIMITS.vaultNameMaxChars}
              placeholder={text.vaultTitle.placeholder}
              aria-describedby="vault-name-hint"
              onChange={(e) => setName(e.target.value)}
              // biome-ignore lint/a11y/noAutofocus: the field replaces the title the user just chose to edit
              autoFocus
            />
            <button type="submit" className="button small" disabled={busy}>
              {busy ? text.vaultTitle.saving : text.vaultTitle.save}
            </button>
            <button type="button" className="button secondary small" onClick={() => setEditing(false)}>
              {text.common.cancel}
            </button>
            <span id="vault-name-hint" className="muted small">
              {text.vaultTitle.emptyHint}
            </span>
          </form>
        ) : (
          <>
            <h1 id="vault-title">
              <UntrustedName name={v.label} />
            </h1>
            <button
              type="button"
              className="link-button small"
              onClick={start}
              disabled={!canWrite}
              title={reason ?? undefined}
              aria-label={text.vaultTitle.renameLabel(v.label)}
            >
              {text.vaultTitle.rename}
            </button>
          </>
        )}
        <StateBadge state={v.state} />
        <ReadinessChip v={v} />
      </header>
      {error !== undefined && <ErrorNotice error={error} />}
    </>
  )
}
