/**
 * A process's resident memory from /proc (Linux): its VmRSS now, sampled while a bench runs, and
 * its VmHWM (the most it has held since it started), so that a bench can say what a server held
 * while it served.
 */
import { readFileSync } from 'node:fs';

/** The kB field `name` of /proc/<pid>/status, in bytes; NaN if the process is gone (or not on Linux). */
function statusBytes(pid, name) {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

export const residentBytesOf = (pid) => statusBytes(pid, 'VmRSS');
export const peakResidentBytesOf = (pid) => statusBytes(pid, 'VmHWM');

/**
 * Samples the resident memory of the process `pidOf()` names (asked at every sample, so that a
 * restarted server is followed) every `everyMs`, until stop(), which answers the largest and the
 * last sample and their count.
 */
export function sampleResidentMemory(pidOf, everyMs = 250) {
  let maxBytes = 0;
  let lastBytes = NaN;
  let samples = 0;
  const sample = () => {
    const bytes = residentBytesOf(pidOf());
    if (!Number.isFinite(bytes)) return;
    lastBytes = bytes;
    maxBytes = Math.max(maxBytes, bytes);
    samples += 1;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { maxBytes, lastBytes, samples };
    },
  };
}
