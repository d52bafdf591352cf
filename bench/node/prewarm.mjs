// Time to the first message with the official TypeScript SDK: a cold `query()` and a query on
// a `startup()` handle (the process spawned and initialized before the clock starts),
// alternating, ROUNDS of each.
//
//     node prewarm.mjs CLI ROUNDS
//
// Run by `cargo xtask bench-prewarm` beside twinwire's `twinwire-prewarm`, with the SDK's
// `sdk.mjs` in TWINWIRE_BENCH_TS_SDK and the CLI's environment (a fake's script, or the real
// CLI's private HOME and model server) in this process's. Prints one JSON line:
// {"cold_ms", "warm_ms", "cold_result_ms", "warm_result_ms", "claimed_ms",
// "claimed_result_ms": [...], "claims_served": N}. With TWINWIRE_BENCH_CLAIM_DIR set, ROUNDS more
// sessions from a `prewarm()` spare claimed for that folder with their own model.

import { pathToFileURL } from "node:url";

const [cli, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const sdk = await import(pathToFileURL(process.env.TWINWIRE_BENCH_TS_SDK).href);

const options = () => ({
  pathToClaudeCodeExecutable: cli,
  env: { ...process.env },
  includePartialMessages: true,
});

// Iterates the query to its result; returns the milliseconds from `start` to its first
// message (the turn's `system/init`) and to its result. With `initOnly`, the first message
// counted is the `system/init` itself (a claimed spare's query yields messages of its own
// before the CLI's).
async function timedTurn(query, start, initOnly = false) {
  let first = null;
  for await (const message of query) {
    const counts = !initOnly || (message.type === "system" && message.subtype === "init");
    if (first === null && counts) first = performance.now() - start;
    if (message.type === "result") {
      const done = performance.now() - start;
      return [first ?? done, done];
    }
  }
  throw new Error("no result");
}

const out = { cold_ms: [], warm_ms: [], cold_result_ms: [], warm_result_ms: [] };
for (let i = 0; i < rounds; i++) {
  let start = performance.now();
  let [first, result] = await timedTurn(sdk.query({ prompt: "go", options: options() }), start);
  out.cold_ms.push(first);
  out.cold_result_ms.push(result);

  const handle = await sdk.startup({ options: options() });
  start = performance.now();
  [first, result] = await timedTurn(handle.query("go"), start);
  out.warm_ms.push(first);
  out.warm_result_ms.push(result);
}
out.claimed_ms = [];
out.claimed_result_ms = [];
out.claims_served = 0;
const claimDir = process.env.TWINWIRE_BENCH_CLAIM_DIR;
for (let i = 0; claimDir && i < rounds; i++) {
  const spare = await sdk.prewarm({ options: options() });
  const start = performance.now();
  const query = spare.claim({ prompt: "go", options: { cwd: claimDir, model: "claude-haiku-4-5" } });
  const served = spare.claimed.then(() => 1, () => 0);
  const [first, result] = await timedTurn(query, start, true);
  out.claimed_ms.push(first);
  out.claimed_result_ms.push(result);
  out.claims_served += await served;
}
console.log(JSON.stringify(out));
process.exit(0);
