// Brings a section into view when navigation asked for it (readiness fixes, notices).
import { useEffect } from 'react'
import { type SectionId, useNavigationStore } from './navigation-store'

/** Give the section's heading this id and tabIndex={-1}; it is scrolled to and focused once. */
export function useSectionTarget(id: SectionId, ready = true) {
  const section = useNavigationStore((s) => s.section)
  const shown = useNavigationStore((s) => s.sectionShown)
  useEffect(() => {
    if (section !== id || !ready) return
    const element = document.getElementById(`section-${id}`)
    if (!element) return
    element.scrollIntoView({ behavior: 'smooth', block: 'start' })
    element.focus({ preventScroll: true })
    shown()
  }, [section, id, ready, shown])
}
