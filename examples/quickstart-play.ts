/**
 * Quick start (README): play speech through the sound output with captions synced to what is
 * heard. The player runs in a child process (aplay / paplay / ffplay) after a device check; with
 * no device this example paces the captions in real time instead.
 *
 * Run: node --import tsx examples/quickstart-play.ts "Some text to say."
 */
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { createClient } from '../src/client/index.js';
import { SinkError } from '../src/errors.js';
import { startLocalService } from '../src/service/index.js';
import { createPlayerSink, createRealtimeSink, type PlayerSink } from '../src/sinks/index.js';

export async function speakAloud(text: string): Promise<Array<{ text: string; heardAtSec: number }>> {
  const service = process.env.VOICEWIRE_BASE_URL ? null : await startLocalService();
  const client = createClient(service ? { baseUrl: service.baseUrl, apiKey: service.token } : {});
  try {
    const { stream } = await client.tts.streamWithTimestamps(
      { text, format: 'opus' },
      { playhead: 'external', output: { encoding: 's16le' } }, // the player moves the playhead
    );
    let sink: PlayerSink;
    try {
      sink = createPlayerSink();
    } catch (err) {
      if (!(err instanceof SinkError && err.code === 'NO_AUDIO_DEVICE')) throw err;
      console.error(`${err.message}: captions only`);
      sink = createRealtimeSink();
    }
    sink.on('position', (samples: number) => stream.playhead.advanceTo(samples));
    const t0 = performance.now();
    const heard: Array<{ text: string; heardAtSec: number }> = [];
    stream.on('word', (w) => {
      heard.push({ text: w.text, heardAtSec: (performance.now() - t0) / 1000 });
      console.log(w.start.toFixed(2), w.text);
    });
    await pipeline(stream, sink); // resolves once the last sample was heard
    return heard;
  } finally {
    await service?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await speakAloud(process.argv[2] ?? 'Hello from voicewire.');
