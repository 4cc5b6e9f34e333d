// Load: CLIENTS concurrent streaming clients x REQUESTS each, parsed the way `vllm bench serve`
// parses a stream: time to first token from the first event with text, inter-token latency per
// event, output tokens from the final usage chunk. Every request must complete; prints p50 / p99.
// Usage: node load_test.mjs BASE_URL CLIENTS REQUESTS
const [baseURL, clients, requests] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];

async function one() {
  const start = performance.now();
  const res = await fetch(`${baseURL}/completions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'fortune-qwen3-7m', prompt: 'A wise man once said', max_tokens: 16, ignore_eos: true,
      stream: true, stream_options: { include_usage: true } }),
  });
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let ttft = null;
  let last = start;
  const itl = [];
  let usage = null;
  let done = false;
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let sep;
    while ((sep = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, sep);
      buffer = buffer.slice(sep + 2);
      if (!event.startsWith('data: ')) throw new Error(`bad event ${event}`);
      const data = event.slice(6);
      if (data === '[DONE]') { done = true; continue; }
      const chunk = JSON.parse(data);
      const now = performance.now();
      if (chunk.usage) usage = chunk.usage;
      if (chunk.choices.length) {
        if (ttft === null) ttft = now - start; else itl.push(now - last);
        last = now;
      }
    }
  }
  if (!done || !usage || usage.completion_tokens !== 16) throw new Error('incomplete stream');
  return { ttft, itl };
}

const ttfts = [];
const itls = [];
let failed = 0;
await Promise.all(Array.from({ length: clients }, async () => {
  for (let i = 0; i < requests; i += 1) {
    try {
      const r = await one();
      ttfts.push(r.ttft);
      itls.push(...r.itl);
    } catch (e) {
      failed += 1;
      console.log(`request failed: ${e.message}`);
    }
  }
}));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
console.log(`load: ${clients} clients x ${requests} requests: ${ttfts.length} completed, ${failed} failed; ` +
  `TTFT p50 ${pct(ttfts, 0.5).toFixed(1)} ms p99 ${pct(ttfts, 0.99).toFixed(1)} ms; ` +
  `ITL p50 ${pct(itls, 0.5).toFixed(1)} ms p99 ${pct(itls, 0.99).toFixed(1)} ms`);
process.exit(failed ? 1 : 0);
