import { useWriteAccess } from '../stores/connection-store'

/** Said once above a group of disabled controls: why they are disabled. */
export function ReadOnlyNote() {
  const { canWrite, reason } = useWriteAccess()
  if (canWrite || !reason) return null
  return (
    <p className="notice notice-info" data-testid="read-only-note">
      {reason}
    </p>
  )
}
