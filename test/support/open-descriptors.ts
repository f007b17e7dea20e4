// How many of this process's file descriptors are open on a path (Linux: /proc/self/fd).
import { readdirSync, readlinkSync } from 'node:fs'

export function descriptorsOn(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path
    } catch {
      return false
    }
  }).length
}
