"""The official Python SDK (claude-agent-sdk 0.2.189) as a real client of a Claude Code CLI.

    python scenarios.py SCENARIO

Run by the peers suite (crates/cli/tests/peers) with the venv's interpreter that `cargo xtask
test` installs. The CLI the SDK runs is `$TWINWIRE_PEERS_CLI`: a `twinwire tap` wrapper in front of
the real CLI, `fake-claude`, or a `twinwire replay` wrapper. Everything else the CLI needs (HOME,
ANTHROPIC_BASE_URL, TWINWIRE_FAKE_SCRIPT, ...) is in this process's environment, which the SDK
passes on. Only the SDK's public API is used.

Each scenario prints one JSON line on stdout, `{"sdk": "python", "scenario": ..., "ok": true,
"checks": N, ...}`, and exits 0; the first failed check prints `"ok": false` with an `error`
saying what was expected and what came, and exits 1. Every wait has a time limit.
"""

import asyncio
import json
import os
import sys
import time

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    TextBlock,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    get_session_messages,
    list_sessions,
    query,
    tool,
)

# One step (a turn, a control request) may take this long; the whole scenario 3 times that.
STEP_S = 30.0
SCENARIO_S = 3 * STEP_S

CLI_ENV = "TWINWIRE_PEERS_CLI"
DENIAL = "not on my watch"
HOOK_REASON = "the hook says no shell"
# The real CLI hands this to the model; the suite looks for it in the model's requests.
HOOK_CONTEXT = "context from the UserPromptSubmit hook: 7f3a"


class CheckFailed(Exception):
    """A scenario's expectation did not hold."""


class Checks:
    """Counts the checks that passed; the first that fails ends the scenario."""

    def __init__(self):
        self.passed = 0

    def that(self, condition, what, seen=None):
        if not condition:
            detail = "" if seen is None else f"; saw: {seen!r}"
            raise CheckFailed(f"{what}{detail}")
        self.passed += 1

    def equal(self, seen, expected, what):
        self.that(seen == expected, f"{what}: expected {expected!r}", seen)


async def within(awaitable, what):
    try:
        return await asyncio.wait_for(awaitable, STEP_S)
    except asyncio.TimeoutError:
        raise CheckFailed(f"{what}: nothing after {STEP_S:.0f} s") from None


def options(**extra):
    cli = os.environ.get(CLI_ENV)
    if not cli:
        raise CheckFailed(f"${CLI_ENV} is not set")
    return ClaudeAgentOptions(cli_path=cli, permission_mode="default", **extra)


async def collect(prompt, opts, what):
    async def run():
        return [message async for message in query(prompt=prompt, options=opts)]

    return await within(run(), what)


async def turn(client, prompt, what):
    await within(client.query(prompt), f"{what}: sending")

    async def run():
        return [message async for message in client.receive_response()]

    return await within(run(), what)


def assistant_text(messages):
    return "".join(
        block.text
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, TextBlock)
    )


def tool_results(messages):
    return [
        block
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def block_text(block):
    if isinstance(block.content, str):
        return block.content
    return json.dumps(block.content)


def mentions(check, block, needle, what):
    check.that(needle in block_text(block), what, block)


def the_result(check, messages):
    results = [m for m in messages if isinstance(m, ResultMessage)]
    check.equal(len(results), 1, "one result per turn")
    return results[0]


def succeeded(check, result, text):
    check.equal(result.subtype, "success", "result subtype")
    check.equal(result.is_error, False, "result is_error")
    check.equal(result.result, text, "result text")


async def text(check, report):
    messages = await collect("say hello", options(), "the text turn")
    check.equal(assistant_text(messages), "Hello from the model.", "assistant text")
    succeeded(check, the_result(check, messages), "Hello from the model.")
    report["messages"] = len(messages)


def asking(answer):
    """A can_use_tool callback that records what it was asked and answers with `answer`."""
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append({"tool": tool_name, "input": tool_input, "id": context.tool_use_id})
        return answer(tool_input)

    return can_use_tool, asked


def asked_once(check, asked, command):
    check.equal(len(asked), 1, "can_use_tool calls")
    check.equal(asked[0]["tool"], "Bash", "can_use_tool tool name")
    check.equal(asked[0]["input"].get("command"), command, "can_use_tool input command")
    check.that(bool(asked[0]["id"]), "can_use_tool got a tool_use_id", asked[0])


async def permission_allow(check, report):
    callback, asked = asking(lambda tool_input: PermissionResultAllow(updated_input=tool_input))
    messages = await collect("run the command", options(can_use_tool=callback), "the tool turn")
    asked_once(check, asked, "touch allowed.txt")
    results = tool_results(messages)
    check.equal(len(results), 1, "tool results")
    check.that(not results[0].is_error, "the allowed tool succeeded", results[0])
    check.equal(results[0].tool_use_id, asked[0]["id"], "tool result's tool_use_id")
    result = the_result(check, messages)
    succeeded(check, result, "done")
    check.that(not result.permission_denials, "no permission denials", result.permission_denials)


async def permission_deny(check, report):
    callback, asked = asking(lambda _input: PermissionResultDeny(message=DENIAL))
    messages = await collect("run the command", options(can_use_tool=callback), "the tool turn")
    asked_once(check, asked, "touch denied.txt")
    results = tool_results(messages)
    check.equal(len(results), 1, "tool results")
    check.equal(results[0].is_error, True, "the denied tool's result is an error")
    mentions(check, results[0], DENIAL, "the denial message in the tool result")
    result = the_result(check, messages)
    succeeded(check, result, "done")
    denials = result.permission_denials or []
    check.equal(len(denials), 1, "permission denials")
    check.equal(denials[0].get("tool_name"), "Bash", "denied tool")
    check.equal(denials[0].get("tool_input", {}).get("command"), "touch denied.txt", "denied input")


async def hooks(check, report):
    seen = []

    async def on_prompt(hook_input, tool_use_id, context):
        seen.append(dict(hook_input))
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": HOOK_CONTEXT,
            }
        }

    async def before_tool(hook_input, tool_use_id, context):
        seen.append(dict(hook_input))
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": HOOK_REASON,
            }
        }

    callback, asked = asking(lambda tool_input: PermissionResultAllow(updated_input=tool_input))
    opts = options(
        can_use_tool=callback,
        hooks={
            "UserPromptSubmit": [HookMatcher(hooks=[on_prompt])],
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[before_tool])],
        },
    )
    messages = await collect("use the shell", opts, "the hooked turn")
    events = [entry.get("hook_event_name") for entry in seen]
    check.equal(events, ["UserPromptSubmit", "PreToolUse"], "hooks called, in order")
    check.equal(seen[0].get("prompt"), "use the shell", "UserPromptSubmit prompt")
    check.equal(seen[1].get("tool_name"), "Bash", "PreToolUse tool name")
    command = seen[1].get("tool_input", {}).get("command")
    check.equal(command, "touch hooked.txt", "PreToolUse input")
    # The hook's deny took effect: no permission prompt, and the tool did not run.
    check.equal(asked, [], "can_use_tool calls after the hook denied")
    results = tool_results(messages)
    check.equal(len(results), 1, "tool results")
    check.equal(results[0].is_error, True, "the blocked tool's result is an error")
    mentions(check, results[0], HOOK_REASON, "the hook's reason in the tool result")
    succeeded(check, the_result(check, messages), "hooks done")


async def mcp(check, report):
    calls = []

    @tool("add", "Adds two integers", {"a": int, "b": int})
    async def add(args):
        calls.append(dict(args))
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}

    calc = create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])
    opts = options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    messages = await collect("add them", opts, "the MCP turn")
    check.equal(calls, [{"a": 2, "b": 40}], "calls of the in-process tool")
    results = tool_results(messages)
    check.equal(len(results), 1, "tool results")
    check.that(not results[0].is_error, "the MCP tool succeeded", results[0])
    mentions(check, results[0], "sum=42", "the tool's output in the tool result")
    succeeded(check, the_result(check, messages), "the sum is 42")


async def interrupt(check, report):
    async with ClaudeSDKClient(options(include_partial_messages=True)) as client:
        await within(client.query("tell a long story"), "sending the long turn")
        deltas = 0
        interrupted = False
        messages = []

        async def run():
            nonlocal deltas, interrupted
            async for message in client.receive_response():
                messages.append(message)
                event = message.event if isinstance(message, StreamEvent) else {}
                if event.get("type") == "content_block_delta":
                    deltas += 1
                    if not interrupted:
                        # Interrupt at the first piece of text: the turn is under way.
                        await within(client.interrupt(), "the interrupt request")
                        interrupted = True

        await within(run(), "the interrupted turn")
        check.that(interrupted, "a text delta arrived to interrupt", len(messages))
        result = the_result(check, messages)
        check.equal(result.subtype, "error_during_execution", "interrupted result subtype")
        check.equal(result.terminal_reason, "aborted_streaming", "interrupted terminal reason")
        # The model would have sent 40 deltas over 4 s.
        check.that(deltas < 20, "the stream stopped early", deltas)
        report["deltas_before_stop"] = deltas

        after = await turn(client, "short one", "the turn after the interrupt")
        check.equal(assistant_text(after), "the end", "assistant text after the interrupt")
        succeeded(check, the_result(check, after), "the end")


async def three_turns(check, report):
    sessions = set()
    async with ClaudeSDKClient(options()) as client:
        for prompt, answer in [
            ("first question", "one"),
            ("second question", "two"),
            ("third question", "three"),
        ]:
            messages = await turn(client, prompt, f"the turn `{prompt}`")
            check.equal(assistant_text(messages), answer, f"answer to `{prompt}`")
            result = the_result(check, messages)
            succeeded(check, result, answer)
            sessions.add(result.session_id)
    check.equal(len(sessions), 1, "one session for the three turns")


async def within_scenario(awaitable):
    try:
        await asyncio.wait_for(awaitable, SCENARIO_S)
    except asyncio.TimeoutError:
        raise CheckFailed(f"the scenario ran past {SCENARIO_S:.0f} s") from None


def content_text(message):
    """The text of a message's content: a string, or its text blocks joined."""
    content = (message or {}).get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [])


async def resume(check, report):
    """Three processes on one saved session: a first query, a second that resumes it (the
    model answers from the earlier conversation, which the suite checks in the model's
    requests), a third that forks it under a new id; then the SDK's own session functions
    read the files."""
    first = await collect("remember the word PELICAN", options(), "the first query")
    first_result = the_result(check, first)
    succeeded(check, first_result, "noted")
    session = first_result.session_id
    check.that(bool(session), "the first query has a session id", first_result)

    second = await collect(
        "what was the word?", options(resume=session), "the resumed query"
    )
    second_result = the_result(check, second)
    succeeded(check, second_result, "the word was PELICAN")
    check.equal(second_result.session_id, session, "the resumed query's session id")

    third = await collect(
        "fork question", options(resume=session, fork_session=True), "the forked query"
    )
    third_result = the_result(check, third)
    succeeded(check, third_result, "forked with PELICAN")
    forked = third_result.session_id
    check.that(bool(forked) and forked != session, "the fork has a new session id", forked)

    listed = sorted(info.session_id for info in list_sessions(directory=os.getcwd()))
    check.equal(listed, sorted([session, forked]), "list_sessions: the session and its fork")

    def texts(session_id):
        messages = get_session_messages(session_id, directory=os.getcwd())
        return [f"{m.type}: {content_text(m.message)}" for m in messages]

    earlier = [
        "user: remember the word PELICAN",
        "assistant: noted",
        "user: what was the word?",
        "assistant: the word was PELICAN",
    ]
    check.equal(texts(session), earlier, "get_session_messages of the resumed session")
    check.equal(
        texts(forked),
        earlier + ["user: fork question", "assistant: forked with PELICAN"],
        "get_session_messages of the fork",
    )
    report["sessions"] = len(listed)


async def echo_agent(check, report):
    """Against a Rust agent served by twinwire (its examples/echo_agent), not Claude Code."""
    messages = await collect("hello agent", options(), "the echo turn")
    check.equal(assistant_text(messages), "You said: hello agent", "assistant text")
    succeeded(check, the_result(check, messages), "You said: hello agent")
    callback, asked = asking(lambda _input: PermissionResultDeny(message=DENIAL))
    messages = await collect(
        "delete the build", options(can_use_tool=callback), "the permission turn"
    )
    asked_once(check, asked, "rm -rf build")
    succeeded(check, the_result(check, messages), f"denied: {DENIAL}")


SCENARIOS = {
    "text": text,
    "permission_allow": permission_allow,
    "permission_deny": permission_deny,
    "hooks": hooks,
    "mcp": mcp,
    "interrupt": interrupt,
    "three_turns": three_turns,
    "resume": resume,
    "echo_agent": echo_agent,
}


def main():
    started = time.monotonic()
    name = sys.argv[1] if len(sys.argv) == 2 else None
    report = {"sdk": "python", "scenario": name}
    check = Checks()
    try:
        scenario = SCENARIOS.get(name)
        if scenario is None:
            raise CheckFailed(f"usage: scenarios.py {'|'.join(SCENARIOS)}")
        asyncio.run(within_scenario(scenario(check, report)))
        report["ok"] = True
    except CheckFailed as failed:
        report.update(ok=False, error=str(failed))
    except BaseException as err:  # the suite wants its line, whatever happened
        report.update(ok=False, error=f"{type(err).__name__}: {err}")
    report.update(checks=check.passed, seconds=round(time.monotonic() - started, 3))
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
