import { splitTextIntoChunks } from '../src/service/speech/textChunks.ts';
const S = 'First sentence is here. Second one follows, with a clause. Third is short. The fourth sentence is a good deal longer than the others, and it goes on for a while. Fifth!';
console.log(splitTextIntoChunks(S, { chunkLength: 300, minChunkLength: 20, latency: 'balanced' }));
