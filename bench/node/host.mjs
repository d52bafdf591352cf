// Benchmark host for the official TypeScript SDK (@anthropic-ai/claude-agent-sdk 0.3.330).
//
//     node host.mjs WORKLOAD FAKE SCRIPT N
//
// Started by `cargo xtask bench`, which installs the SDK under target/sdks/node and passes the
// path of its `sdk.mjs` as TWINWIRE_BENCH_TS_SDK. Drives `fake-claude` (FAKE, playing SCRIPT)
// through the SDK's public API only: `query({prompt, options: {pathToClaudeCodeExecutable,
// canUseTool, env}})`. Prints one JSON line with the fields described in
// crates/bench/src/lib.rs (`Report`).

const MAIN_NS = process.hrtime.bigint();

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const PROMPT = "go";
const SCRIPT_ENV = "TWINWIRE_FAKE_SCRIPT";

const now = () => process.hrtime.bigint();

function procStatusKib(field) {
  for (const line of readFileSync("/proc/self/status", "utf8").split("\n")) {
    if (line.startsWith(field + ":")) return Number(line.split(/\s+/)[1]);
  }
  return 0;
}

function cpuSelfS() {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1e6;
}

function options(fake, script, extra = {}) {
  return {
    pathToClaudeCodeExecutable: fake,
    // `env` replaces the child's whole environment in the TS SDK.
    env: { ...process.env, [SCRIPT_ENV]: script },
    includePartialMessages: true,
    ...extra,
  };
}

function userMessage() {
  return {
    type: "user",
    message: { role: "user", content: PROMPT },
    parent_tool_use_id: null,
    session_id: "",
  };
}

// The slow consumer of the `slowflood` workload pauses PAUSE_MS after every PAUSE_EVERY
// messages (the same in every host).
const PAUSE_MS = 5;
const PAUSE_EVERY = 1000;

// One `query`, every message counted (the flood, and the startup's echo turn); with `slow`,
// the consumer pauses now and then (the `slowflood` workload).
async function drain(query, opts, report, slow = false) {
  const cpuStart = cpuSelfS();
  const start = now();
  let first = 0n;
  let events = 0, assistants = 0, results = 0;
  for await (const message of query({ prompt: PROMPT, options: opts })) {
    if (first === 0n) first = now();
    if (slow && (events + assistants) % PAUSE_EVERY === PAUSE_EVERY - 1) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    if (message.type === "stream_event") events += 1;
    else if (message.type === "assistant") assistants += 1;
    else if (message.type === "result") results += 1;
  }
  Object.assign(report, {
    start_ns: start,
    first_ns: first,
    end_ns: now(),
    cpu_start_s: cpuStart,
    cpu_end_s: cpuSelfS(),
    stream_events: events,
    assistants,
    results,
  });
}

// One `query` whose permission requests are all answered "allow" by `canUseTool`.
async function roundtrip(query, fake, script, report) {
  let calls = 0, firstCb = 0n, lastCb = 0n;
  const canUseTool = async (toolName, input) => {
    const t = now();
    if (calls === 0) firstCb = t;
    lastCb = t;
    calls += 1;
    return { behavior: "allow", updatedInput: input };
  };
  await drain(query, options(fake, script, { canUseTool }), report);
  Object.assign(report, { callbacks: calls, first_cb_ns: firstCb, last_cb_ns: lastCb });
}

// `n` queries at once, each fed by a prompt stream that stays open: one echo turn each, all
// held open and idle while the RSS is read, then every prompt stream ends.
async function sessions(query, fake, script, n, report) {
  const rssBefore = procStatusKib("VmRSS");
  const cpuStart = cpuSelfS();
  const start = now();
  let releaseAll;
  const released = new Promise((resolve) => (releaseAll = resolve));
  const errors = [];
  let done = 0;

  const one = async () => {
    async function* prompt() {
      yield userMessage();
      await released;
    }
    const q = query({ prompt: prompt(), options: options(fake, script) });
    let turnDone = false;
    try {
      for (;;) {
        const { value, done: ended } = await q.next();
        if (ended) throw new Error("the output ended before a result");
        if (value.type === "result") break;
      }
      done += 1;
      turnDone = true;
    } catch (err) {
      errors.push(String(err && err.message ? err.message : err));
    }
    return { q, turnDone };
  };

  const started = [];
  for (let i = 0; i < n; i += 1) started.push(one());
  const all = await Promise.all(started);
  const ready = now();
  const rssIdle = procStatusKib("VmRSS");
  const sessionsDone = done;
  releaseAll();
  await Promise.all(
    all.map(async ({ q, turnDone }) => {
      try {
        if (turnDone) {
          for (;;) {
            const { done: ended } = await q.next();
            if (ended) break;
          }
        } else {
          q.close();
        }
      } catch (err) {
        errors.push(`close: ${err && err.message ? err.message : err}`);
      }
    }),
  );
  Object.assign(report, {
    start_ns: start,
    first_ns: ready,
    end_ns: now(),
    cpu_start_s: cpuStart,
    cpu_end_s: cpuSelfS(),
    sessions: sessionsDone,
    failures: errors.length,
    rss_before_kib: rssBefore,
    rss_idle_kib: rssIdle,
  });
  if (errors.length) Object.assign(report, { ok: false, error: errors[0] });
}

async function main() {
  const report = { main_ns: MAIN_NS };
  try {
    const [workload, fake, script, n] = process.argv.slice(2);
    const sdk = process.env.TWINWIRE_BENCH_TS_SDK;
    if (!sdk) throw new Error("TWINWIRE_BENCH_TS_SDK is not set");
    const { query } = await import(pathToFileURL(sdk).href);
    if (workload === "flood" || workload === "startup") {
      await drain(query, options(fake, script), report);
    } else if (workload === "slowflood") {
      await drain(query, options(fake, script), report, true);
    } else if (workload === "roundtrip") {
      await roundtrip(query, fake, script, report);
    } else if (workload === "sessions") {
      await sessions(query, fake, script, Number(n), report);
    } else {
      throw new Error(`unknown workload \`${workload}\``);
    }
  } catch (err) {
    Object.assign(report, { ok: false, error: String(err && err.stack ? err.stack : err) });
  }
  if (report.ok === undefined) report.ok = true;
  Object.assign(report, { cpu_s: cpuSelfS(), hwm_kib: procStatusKib("VmHWM") });
  const line = JSON.stringify(report, (_, v) => (typeof v === "bigint" ? Number(v) : v));
  process.stdout.write(line + "\n", () => process.exit(report.ok ? 0 : 1));
}

main();
