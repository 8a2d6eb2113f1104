/**
 * The detector thread's counters so far (`ModelRunStats`: its CPU, thread id, wakes, windows), read
 * by a probe call opened and closed on it: the thread reports them when a call closes. The probe
 * uses the WebRTC VAD, so it loads no model; the thread stays up between steps. Undefined when the
 * thread failed. For the benches and probes (bench/bargeInTransportPaired.ts, bench/detectorCostProbe.ts).
 */
import { detectorThreads } from '../../src/telephony/bargeIn/DetectorThreads.js';
import type { ModelRunStats } from '../../src/telephony/bargeIn/detectorMessages.js';

export function probeDetectorThread(): Promise<ModelRunStats | undefined> {
  return new Promise((resolve) => {
    const id = detectorThreads.attach({
      message: (m) => {
        if (m.t === 'ready') detectorThreads.post(id, { t: 'close', id });
        if (m.t === 'closed') {
          detectorThreads.release(id);
          resolve(m.model);
        }
        if (m.t === 'failed') resolve(undefined);
      },
      failed: () => resolve(undefined),
    });
    detectorThreads.post(id, { t: 'open', id, options: { vad: { backend: 'webrtc' } } });
  });
}
