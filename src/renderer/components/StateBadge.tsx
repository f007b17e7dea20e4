import type { VaultState } from '../../shared/api'

const LABEL: Record<VaultState, string> = { active: 'Active', releasing: 'Releasing', released: 'Released' }

export function StateBadge({ state }: { state: VaultState }) {
  return (
    <span className={`badge badge-${state}`} data-testid="state-badge">
      {LABEL[state]}
    </span>
  )
}
