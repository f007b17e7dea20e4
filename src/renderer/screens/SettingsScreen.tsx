import { useId, useState } from 'react'
import type { SettingsPatch } from '../../shared/ipc/settings'
import { ConnectionsPanel } from '../components/ConnectionsPanel'
import { CreditsPanel, MailPanel } from '../components/ServicePanel'
import { useSettingsStore } from '../stores/settings-store'

const SECRET_STORE_LABEL = {
  keychain: 'the system keychain',
  'encrypted-file': 'an encrypted file protected by your system login',
  memory: 'memory only (forgotten when the app quits)',
} as const

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function SettingsScreen() {
  const { settings, appInfo, update } = useSettingsStore()
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string } | undefined>()
  const ids = {
    theme: useId(),
    login: useId(),
    notifications: useId(),
    overdue: useId(),
    before: useId(),
    concurrency: useId(),
    confirm: useId(),
    reserve: useId(),
    hideNames: useId(),
  }

  if (!settings || !appInfo) return null
  // Electron sets login items on macOS and Windows only.
  const loginItems = appInfo.mode === 'electron' && appInfo.platform !== 'linux'

  const save = async (patch: SettingsPatch) => {
    try {
      await update(patch)
      setStatus({ kind: 'saved', text: 'Saved.' })
    } catch (error) {
      setStatus({ kind: 'error', text: errorText(error) })
    }
  }

  return (
    <section className="screen" aria-labelledby="settings-title">
      <header className="screen-header">
        <h1 id="settings-title">Settings</h1>
        <p className="status-line" role="status" data-kind={status?.kind}>
          {status?.text}
        </p>
      </header>

      <ConnectionsPanel />
      <CreditsPanel />
      <MailPanel />

      <div className="panel form-grid">
        <h2>Appearance and start-up</h2>
        <label htmlFor={ids.theme}>Theme</label>
        <select
          id={ids.theme}
          value={settings.theme}
          onChange={(event) => save({ theme: event.target.value as 'system' | 'light' | 'dark' })}
        >
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>

        <label htmlFor={ids.login}>Launch at login</label>
        <input
          id={ids.login}
          type="checkbox"
          checked={settings.launchAtLogin}
          disabled={!loginItems}
          aria-describedby={loginItems ? undefined : `${ids.login}-note`}
          onChange={(event) => save({ launchAtLogin: event.target.checked })}
        />
        {!loginItems && (
          <p id={`${ids.login}-note`} className="muted small form-note">
            {appInfo.mode === 'browser'
              ? 'Browser mode cannot start itself at login; the desktop app can.'
              : 'On Linux, add Vault Desktop to your desktop\'s "Startup Applications" instead.'}
          </p>
        )}
      </div>

      <div className="panel form-grid">
        <h2>Reminders</h2>
        <label htmlFor={ids.notifications}>Show notifications</label>
        <input
          id={ids.notifications}
          type="checkbox"
          checked={settings.notifications}
          onChange={(event) => save({ notifications: event.target.checked })}
        />

        <label htmlFor={ids.before}>Remind me before a check-in is due</label>
        <select
          id={ids.before}
          value={settings.reminderDaysBefore.join(',')}
          onChange={(event) =>
            save({ reminderDaysBefore: event.target.value ? event.target.value.split(',').map(Number) : [] })
          }
        >
          {[
            ['7,3,1', '7, 3 and 1 days before'],
            ['3,1', '3 days and 1 day before'],
            ['1', '1 day before'],
            ['', 'Only when it is due'],
          ].map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
          {!['7,3,1', '3,1', '1', ''].includes(settings.reminderDaysBefore.join(',')) && (
            <option value={settings.reminderDaysBefore.join(',')}>
              {settings.reminderDaysBefore.join(', ')} days before
            </option>
          )}
        </select>

        <label htmlFor={ids.overdue}>When a check-in is overdue, remind me every</label>
        <select
          id={ids.overdue}
          value={settings.overdueRepeatHours}
          onChange={(event) => save({ overdueRepeatHours: Number(event.target.value) })}
        >
          {[1, 3, 6, 12, 24].map((hours) => (
            <option key={hours} value={hours}>
              {hours === 1 ? 'hour' : `${hours} hours`}
            </option>
          ))}
        </select>
      </div>

      <div className="panel form-grid">
        <h2>Uploads</h2>
        <label htmlFor={ids.concurrency}>Files uploaded at the same time</label>
        <select
          id={ids.concurrency}
          value={settings.uploadConcurrency}
          onChange={(event) => save({ uploadConcurrency: Number(event.target.value) })}
        >
          {[1, 2, 3, 4].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>

        <label htmlFor={ids.confirm}>Ask before an upload costing more than (credits)</label>
        <input
          id={ids.confirm}
          type="number"
          min={0}
          step={10}
          defaultValue={settings.confirmUploadAboveCredits}
          onBlur={(event) => {
            const value = Number(event.target.value)
            if (!Number.isInteger(value) || value < 0) {
              setStatus({ kind: 'error', text: 'Enter a whole number of credits, 0 or more.' })
              return
            }
            if (value !== settings.confirmUploadAboveCredits) void save({ confirmUploadAboveCredits: value })
          }}
        />

        <label htmlFor={ids.reserve}>Keep credits for this many months of check-ins</label>
        <select
          id={ids.reserve}
          value={settings.checkInReserveMonths}
          aria-describedby={`${ids.reserve}-note`}
          onChange={(event) => save({ checkInReserveMonths: Number(event.target.value) })}
        >
          {[...new Set([0, 3, 6, 12, 24, 36, settings.checkInReserveMonths].sort((a, b) => a - b))].map(
            (months) => (
              <option key={months} value={months}>
                {months === 0 ? 'None (not recommended)' : `${months} month${months === 1 ? '' : 's'}`}
              </option>
            ),
          )}
        </select>
        <p id={`${ids.reserve}-note`} className="muted small form-note">
          Uploads may not spend these credits unless you say so, so that a dead man's switch never starts the
          release just because the credits for check-ins ran out.
        </p>

        <label htmlFor={ids.hideNames}>Hide file names from the service</label>
        <input
          id={ids.hideNames}
          type="checkbox"
          checked={settings.hideFileNames}
          aria-describedby={`${ids.hideNames}-note`}
          onChange={(event) => save({ hideFileNames: event.target.checked })}
        />
        <p id={`${ids.hideNames}-note`} className="muted small form-note">
          New uploads reach the service under a neutral name, without their folder, type or date. The real
          name is sealed inside the encrypted file, so heirs still get every file under its own name; this
          computer keeps showing the names of files it uploaded.
        </p>
      </div>

      <div className="panel">
        <h2>About this app</h2>
        <dl className="facts">
          <dt>Version</dt>
          <dd>{appInfo.version}</dd>
          <dt>Platform</dt>
          <dd>{appInfo.platform}</dd>
          <dt>Running as</dt>
          <dd>{appInfo.mode === 'electron' ? 'Desktop app' : 'Browser mode (local bridge)'}</dd>
          <dt>API keys are kept in</dt>
          <dd data-testid="secret-store">{SECRET_STORE_LABEL[appInfo.secretStore]}</dd>
        </dl>
      </div>
    </section>
  )
}
