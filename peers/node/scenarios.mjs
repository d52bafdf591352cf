// The official TypeScript SDK (@anthropic-ai/claude-agent-sdk 0.3.332) as a real client of a
// Claude Code CLI.
//
//     node scenarios.mjs SCENARIO
//
// Run by the peers suite (crates/cli/tests/peers). `cargo xtask test` installs the SDK under
// target/sdks/node and the suite passes the path of its `sdk.mjs` as TWINWIRE_PEERS_TS_SDK (the
// SDK is not on any module path, so it is imported by path, as is its `zod`). The CLI the SDK
// runs is `$TWINWIRE_PEERS_CLI`: a `twinwire tap` wrapper in front of the real CLI, `fake-claude`,
// or a `twinwire replay` wrapper. Everything else the CLI needs (HOME, ANTHROPIC_BASE_URL,
// TWINWIRE_FAKE_SCRIPT, ...) is in this process's environment, which the SDK's child inherits.
// Only the SDK's public API is used.
//
// Each scenario prints one JSON line on stdout, `{"sdk": "node", "scenario": ..., "ok": true,
// "checks": N, ...}`, and exits 0; the first failed check prints `"ok": false` with an `error`
// saying what was expected and what came, and exits 1. Every wait has a time limit.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

// One step (a turn, a control request) may take this long; the whole scenario 3 times that.
const STEP_MS = 30_000;
const SCENARIO_MS = 3 * STEP_MS;

const DENIAL = "not on my watch";
const HOOK_REASON = "the hook says no shell";
// The real CLI hands this to the model; the suite looks for it in the model's requests.
const HOOK_CONTEXT = "context from the UserPromptSubmit hook: 7f3a";

class CheckFailed extends Error {}

// Counts the checks that passed; the first that fails ends the scenario.
class Checks {
  constructor() {
    this.passed = 0;
  }

  that(condition, what, seen) {
    if (!condition) {
      const detail = seen === undefined ? "" : `; saw: ${JSON.stringify(seen)}`;
      throw new CheckFailed(`${what}${detail}`);
    }
    this.passed += 1;
  }

  equal(seen, expected, what) {
    const why = `${what}: expected ${JSON.stringify(expected)}`;
    this.that(isDeepStrictEqual(seen, expected), why, seen);
  }
}

// `promise`, or a CheckFailed naming `what` after the step limit.
function within(promise, what, ms = STEP_MS) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`${what}: nothing after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

let sdk;

function options(extra = {}) {
  const cli = process.env.TWINWIRE_PEERS_CLI;
  if (!cli) throw new CheckFailed("$TWINWIRE_PEERS_CLI is not set");
  // Without `permissionMode` the CLI may pick another starting mode; `default` keeps the
  // decisions with canUseTool.
  return { pathToClaudeCodeExecutable: cli, permissionMode: "default", ...extra };
}

// A prompt stream the scenario feeds one message at a time (streaming input: one process,
// several turns, and the control requests that need it, such as interrupt).
class Prompts {
  constructor() {
    this.queue = [];
    this.waiting = null;
    this.ended = false;
  }

  push(text) {
    const message = {
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
    };
    this.queue.push(message);
    this.wake();
  }

  end() {
    this.ended = true;
    this.wake();
  }

  wake() {
    if (this.waiting) {
      this.waiting();
      this.waiting = null;
    }
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.queue.length) {
        yield this.queue.shift();
      } else if (this.ended) {
        return;
      } else {
        await new Promise((resolve) => (this.waiting = resolve));
      }
    }
  }
}

async function collect(prompt, opts, what) {
  const run = async () => {
    const messages = [];
    for await (const message of sdk.query({ prompt, options: opts })) messages.push(message);
    return messages;
  };
  return within(run(), what);
}

// The messages of one turn of a streaming query, up to and including its result.
async function turnOf(iterator, what, onMessage = async () => {}) {
  const run = async () => {
    const messages = [];
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) throw new CheckFailed(`${what}: the query ended before a result`);
      messages.push(value);
      await onMessage(value);
      if (value.type === "result") return messages;
    }
  };
  return within(run(), what);
}

const blocks = (messages, type) =>
  messages.flatMap((m) =>
    m.type === type && Array.isArray(m.message?.content) ? m.message.content : [],
  );

const assistantText = (messages) =>
  blocks(messages, "assistant")
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");

const toolResults = (messages) => blocks(messages, "user").filter((b) => b.type === "tool_result");

const blockText = (block) =>
  typeof block.content === "string" ? block.content : JSON.stringify(block.content);

const mentions = (check, block, needle, what) =>
  check.that(blockText(block).includes(needle), what, block);

function theResult(check, messages) {
  const results = messages.filter((m) => m.type === "result");
  check.equal(results.length, 1, "one result per turn");
  return results[0];
}

function succeeded(check, result, text) {
  check.equal(result.subtype, "success", "result subtype");
  check.equal(result.is_error, false, "result is_error");
  check.equal(result.result, text, "result text");
}

async function text(check, report) {
  const messages = await collect("say hello", options(), "the text turn");
  check.equal(assistantText(messages), "Hello from the model.", "assistant text");
  succeeded(check, theResult(check, messages), "Hello from the model.");
  report.messages = messages.length;
}

// A canUseTool callback that records what it was asked and answers with `answer`.
function asking(answer) {
  const asked = [];
  const canUseTool = async (toolName, input, { toolUseID }) => {
    asked.push({ tool: toolName, input, id: toolUseID });
    return answer(input);
  };
  return [canUseTool, asked];
}

function askedOnce(check, asked, command) {
  check.equal(asked.length, 1, "canUseTool calls");
  check.equal(asked[0].tool, "Bash", "canUseTool tool name");
  check.equal(asked[0].input.command, command, "canUseTool input command");
  check.that(Boolean(asked[0].id), "canUseTool got a toolUseID", asked[0]);
}

async function permissionAllow(check) {
  const [canUseTool, asked] = asking((input) => ({ behavior: "allow", updatedInput: input }));
  const messages = await collect("run the command", options({ canUseTool }), "the tool turn");
  askedOnce(check, asked, "touch allowed.txt");
  const results = toolResults(messages);
  check.equal(results.length, 1, "tool results");
  check.that(!results[0].is_error, "the allowed tool succeeded", results[0]);
  check.equal(results[0].tool_use_id, asked[0].id, "tool result's tool_use_id");
  const result = theResult(check, messages);
  succeeded(check, result, "done");
  check.equal(result.permission_denials, [], "permission denials");
}

async function permissionDeny(check) {
  const [canUseTool, asked] = asking(() => ({ behavior: "deny", message: DENIAL }));
  const messages = await collect("run the command", options({ canUseTool }), "the tool turn");
  askedOnce(check, asked, "touch denied.txt");
  const results = toolResults(messages);
  check.equal(results.length, 1, "tool results");
  check.equal(results[0].is_error, true, "the denied tool's result is an error");
  mentions(check, results[0], DENIAL, "the denial message in the tool result");
  const result = theResult(check, messages);
  succeeded(check, result, "done");
  check.equal(result.permission_denials.length, 1, "permission denials");
  check.equal(result.permission_denials[0].tool_name, "Bash", "denied tool");
  check.equal(result.permission_denials[0].tool_input.command, "touch denied.txt", "denied input");
}

async function hooks(check) {
  const seen = [];
  const onPrompt = async (input) => {
    seen.push(input);
    return {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: HOOK_CONTEXT },
    };
  };
  const beforeTool = async (input) => {
    seen.push(input);
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: HOOK_REASON,
      },
    };
  };
  const [canUseTool, asked] = asking((input) => ({ behavior: "allow", updatedInput: input }));
  const opts = options({
    canUseTool,
    hooks: {
      UserPromptSubmit: [{ hooks: [onPrompt] }],
      PreToolUse: [{ matcher: "Bash", hooks: [beforeTool] }],
    },
  });
  const messages = await collect("use the shell", opts, "the hooked turn");
  check.equal(
    seen.map((input) => input.hook_event_name),
    ["UserPromptSubmit", "PreToolUse"],
    "hooks called, in order",
  );
  check.equal(seen[0].prompt, "use the shell", "UserPromptSubmit prompt");
  check.equal(seen[1].tool_name, "Bash", "PreToolUse tool name");
  check.equal(seen[1].tool_input?.command, "touch hooked.txt", "PreToolUse input");
  // The hook's deny took effect: no permission prompt, and the tool did not run.
  check.equal(asked, [], "canUseTool calls after the hook denied");
  const results = toolResults(messages);
  check.equal(results.length, 1, "tool results");
  check.equal(results[0].is_error, true, "the blocked tool's result is an error");
  mentions(check, results[0], HOOK_REASON, "the hook's reason in the tool result");
  succeeded(check, theResult(check, messages), "hooks done");
}

async function mcp(check) {
  const { z } = await import(pathToFileURL(createRequire(sdkPath()).resolve("zod")).href);
  const calls = [];
  const schema = { a: z.number(), b: z.number() };
  const add = sdk.tool("add", "Adds two integers", schema, async (args) => {
    calls.push(args);
    return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
  });
  const calc = sdk.createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
  const opts = options({ mcpServers: { calc }, allowedTools: ["mcp__calc__add"] });
  const messages = await collect("add them", opts, "the MCP turn");
  check.equal(calls, [{ a: 2, b: 40 }], "calls of the in-process tool");
  const results = toolResults(messages);
  check.equal(results.length, 1, "tool results");
  check.that(!results[0].is_error, "the MCP tool succeeded", results[0]);
  mentions(check, results[0], "sum=42", "the tool's output in the tool result");
  succeeded(check, theResult(check, messages), "the sum is 42");
}

async function interrupt(check, report) {
  const prompts = new Prompts();
  const q = sdk.query({ prompt: prompts, options: options({ includePartialMessages: true }) });
  try {
    prompts.push("tell a long story");
    let deltas = 0;
    let receipt;
    const messages = await turnOf(q, "the interrupted turn", async (message) => {
      if (message.type === "stream_event" && message.event.type === "content_block_delta") {
        deltas += 1;
        if (receipt === undefined) {
          // Interrupt at the first piece of text: the turn is under way.
          receipt = (await within(q.interrupt(), "the interrupt request")) ?? null;
        }
      }
    });
    check.that(receipt !== undefined, "a text delta arrived to interrupt", messages.length);
    check.equal(receipt?.still_queued, [], "the interrupt receipt's still_queued");
    const result = theResult(check, messages);
    check.equal(result.subtype, "error_during_execution", "interrupted result subtype");
    check.equal(result.terminal_reason, "aborted_streaming", "interrupted terminal reason");
    // The model would have sent 40 deltas over 4 s.
    check.that(deltas < 20, "the stream stopped early", deltas);
    report.deltas_before_stop = deltas;

    prompts.push("short one");
    const after = await turnOf(q, "the turn after the interrupt");
    check.equal(assistantText(after), "the end", "assistant text after the interrupt");
    succeeded(check, theResult(check, after), "the end");
    prompts.end();
    const rest = await turnOrEnd(q, "the end of the query");
    check.equal(rest, [], "messages after the prompts ended");
  } finally {
    prompts.end();
  }
}

// What the query yields until it ends (after its prompt stream ended).
async function turnOrEnd(iterator, what) {
  const run = async () => {
    const messages = [];
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) return messages;
      messages.push(value);
    }
  };
  return within(run(), what);
}

async function threeTurns(check) {
  const prompts = new Prompts();
  const q = sdk.query({ prompt: prompts, options: options() });
  try {
    const sessions = new Set();
    for (const [prompt, answer] of [
      ["first question", "one"],
      ["second question", "two"],
      ["third question", "three"],
    ]) {
      prompts.push(prompt);
      const messages = await turnOf(q, `the turn \`${prompt}\``);
      check.equal(assistantText(messages), answer, `answer to \`${prompt}\``);
      const result = theResult(check, messages);
      succeeded(check, result, answer);
      sessions.add(result.session_id);
    }
    check.equal(sessions.size, 1, "one session for the three turns");
    prompts.end();
    const rest = await turnOrEnd(q, "the end of the query");
    check.equal(rest, [], "messages after the prompts ended");
  } finally {
    prompts.end();
  }
}

// The text of a message's content: a string, or its text blocks joined.
const contentText = (message) =>
  typeof message?.content === "string"
    ? message.content
    : (message?.content ?? []).map((b) => b.text ?? "").join("");

// Three processes on one saved session: a first query, a second that resumes it (the model
// answers from the earlier conversation, which the suite checks in the model's requests), a
// third that forks it under a new id; then the SDK's own session functions read the files.
async function resume(check, report) {
  const first = await collect("remember the word PELICAN", options(), "the first query");
  const firstResult = theResult(check, first);
  succeeded(check, firstResult, "noted");
  const id = firstResult.session_id;
  check.that(Boolean(id), "the first query has a session id", firstResult);

  const second = await collect("what was the word?", options({ resume: id }), "the resumed query");
  const secondResult = theResult(check, second);
  succeeded(check, secondResult, "the word was PELICAN");
  check.equal(secondResult.session_id, id, "the resumed query's session id");

  const third = await collect(
    "fork question",
    options({ resume: id, forkSession: true }),
    "the forked query",
  );
  const thirdResult = theResult(check, third);
  succeeded(check, thirdResult, "forked with PELICAN");
  const forked = thirdResult.session_id;
  check.that(Boolean(forked) && forked !== id, "the fork has a new session id", forked);

  const listed = await within(sdk.listSessions({ dir: process.cwd() }), "listSessions");
  const ids = listed.map((info) => info.sessionId).sort();
  check.equal(ids, [id, forked].sort(), "listSessions: the session and its fork");

  const texts = async (session) =>
    (await within(sdk.getSessionMessages(session, { dir: process.cwd() }), "getSessionMessages"))
      .map((m) => `${m.type}: ${contentText(m.message)}`);
  check.equal(
    await texts(id),
    [
      "user: remember the word PELICAN",
      "assistant: noted",
      "user: what was the word?",
      "assistant: the word was PELICAN",
    ],
    "getSessionMessages of the resumed session",
  );
  check.equal(
    await texts(forked),
    [
      "user: remember the word PELICAN",
      "assistant: noted",
      "user: what was the word?",
      "assistant: the word was PELICAN",
      "user: fork question",
      "assistant: forked with PELICAN",
    ],
    "getSessionMessages of the fork",
  );
  report.sessions = ids.length;
}

// Against a Rust agent served by twinwire (its examples/echo_agent), not Claude Code.
async function echoAgent(check) {
  let messages = await collect("hello agent", options(), "the echo turn");
  check.equal(assistantText(messages), "You said: hello agent", "assistant text");
  succeeded(check, theResult(check, messages), "You said: hello agent");
  const [canUseTool, asked] = asking(() => ({ behavior: "deny", message: DENIAL }));
  messages = await collect("delete the build", options({ canUseTool }), "the permission turn");
  askedOnce(check, asked, "rm -rf build");
  succeeded(check, theResult(check, messages), `denied: ${DENIAL}`);
}

const SCENARIOS = {
  text,
  permission_allow: permissionAllow,
  permission_deny: permissionDeny,
  hooks,
  mcp,
  interrupt,
  three_turns: threeTurns,
  resume,
  echo_agent: echoAgent,
};

function sdkPath() {
  const path = process.env.TWINWIRE_PEERS_TS_SDK;
  if (!path) throw new CheckFailed("$TWINWIRE_PEERS_TS_SDK is not set (run `cargo xtask test`)");
  return path;
}

async function main() {
  const started = process.hrtime.bigint();
  const args = process.argv.slice(2);
  const name = args.length === 1 ? args[0] : undefined;
  const report = { sdk: "node", scenario: name ?? null };
  const check = new Checks();
  try {
    const scenario = SCENARIOS[name];
    if (!scenario) {
      throw new CheckFailed(`usage: scenarios.mjs ${Object.keys(SCENARIOS).join("|")}`);
    }
    sdk = await import(pathToFileURL(sdkPath()).href);
    await within(scenario(check, report), `the scenario ${name}`, SCENARIO_MS);
    report.ok = true;
  } catch (err) {
    report.ok = false;
    report.error = err instanceof CheckFailed ? err.message : String(err?.stack ?? err);
  }
  report.checks = check.passed;
  report.seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Exit at once: a failed scenario may leave a query (and its CLI) behind.
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(report.ok ? 0 : 1));
}

main();
