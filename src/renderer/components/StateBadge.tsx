import type { VaultState } from '../../shared/api'
import { text } from '../text'

export function StateBadge({ state }: { state: VaultState }) {
  return (
    <span className={`badge badge-${state}`} data-testid="state-badge">
      {text.vaults.state[state]}
    </span>
  )
}
