/**
 * Quick start (README): speak a sentence, print each word as it is heard, save a WAV and WebVTT
 * captions. Uses VOICEWIRE_BASE_URL / VOICEWIRE_API_KEY when set, else the local service.
 *
 * In your project the imports are `voicewire` (sinks, captions), `voicewire/client` and
 * `voicewire/service`; here they point at the sources so the example runs as a test.
 *
 * Run: node --import tsx examples/quickstart.ts [out-dir]
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { toWebVtt } from '../src/captions/index.js';
import { createClient } from '../src/client/index.js';
import { startLocalService } from '../src/service/index.js';
import { createWavFileSink } from '../src/sinks/index.js';

export async function quickstart(outDir: string): Promise<{ words: string[]; firstFrameMs: number | null }> {
  const service = process.env.VOICEWIRE_BASE_URL ? null : await startLocalService();
  const client = createClient(service ? { baseUrl: service.baseUrl, apiKey: service.token } : {});
  try {
    const { stream, metrics } = await client.tts.streamWithTimestamps({ text: 'Hello from voicewire.', format: 'opus' });
    const words: string[] = [];
    stream.on('word', (w) => {
      words.push(w.text);
      console.log(w.start.toFixed(2), w.text);
    });
    await pipeline(stream, createWavFileSink(join(outDir, 'hello.wav'))); // header fixed on close
    await writeFile(join(outDir, 'hello.vtt'), toWebVtt(stream.alignment.timeline()));
    console.log(`first audio after ${Math.round(metrics.firstFrameMs ?? NaN)} ms, ${metrics.audioDurationSec?.toFixed(2)} s of audio`);
    return { words, firstFrameMs: metrics.firstFrameMs };
  } finally {
    await service?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await quickstart(process.argv[2] ?? '.');
