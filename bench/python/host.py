"""Benchmark host for the official Python SDK (claude-agent-sdk 0.2.187).

    python host.py WORKLOAD FAKE SCRIPT N

Started by `cargo xtask bench` with the venv's interpreter. Drives `fake-claude` (FAKE, playing
SCRIPT) through the SDK's public API only: `query(prompt=..., options=ClaudeAgentOptions(
cli_path=..., can_use_tool=..., env=...))` and `ClaudeSDKClient`. Prints one JSON line with the
fields described in crates/bench/src/lib.rs (`Report`).
"""

import time

MAIN_NS = time.monotonic_ns()

import asyncio  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

from claude_agent_sdk import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    StreamEvent,
    query,
)

PROMPT = "go"
SCRIPT_ENV = "TWINWIRE_FAKE_SCRIPT"


def proc_status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_self_s():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def options(fake, script, **extra):
    return ClaudeAgentOptions(
        cli_path=fake,
        env={SCRIPT_ENV: script},
        include_partial_messages=True,
        **extra,
    )


# The slow consumer of the `slowflood` workload pauses PAUSE_S after every PAUSE_EVERY messages
# (the same in every host).
PAUSE_S = 0.005
PAUSE_EVERY = 1000


async def drain(opts, report, slow=False):
    """One `query`, every message counted (the flood, and the startup's echo turn); with `slow`,
    the consumer pauses now and then (the `slowflood` workload)."""
    cpu_start = cpu_self_s()
    start = time.monotonic_ns()
    first = 0
    events = assistants = results = 0
    async for message in query(prompt=PROMPT, options=opts):
        if first == 0:
            first = time.monotonic_ns()
        if slow and (events + assistants) % PAUSE_EVERY == PAUSE_EVERY - 1:
            await asyncio.sleep(PAUSE_S)
        if isinstance(message, StreamEvent):
            events += 1
        elif isinstance(message, AssistantMessage):
            assistants += 1
        elif isinstance(message, ResultMessage):
            results += 1
    report.update(
        start_ns=start,
        first_ns=first,
        end_ns=time.monotonic_ns(),
        cpu_start_s=cpu_start,
        cpu_end_s=cpu_self_s(),
        stream_events=events,
        assistants=assistants,
        results=results,
    )


async def roundtrip(fake, script, report):
    """One `query` whose permission requests are all answered "allow" by `can_use_tool`."""
    calls = {"n": 0, "first": 0, "last": 0}

    async def allow(tool_name, tool_input, context):
        now = time.monotonic_ns()
        if calls["n"] == 0:
            calls["first"] = now
        calls["last"] = now
        calls["n"] += 1
        return PermissionResultAllow(updated_input=tool_input)

    await drain(options(fake, script, can_use_tool=allow), report)
    report.update(callbacks=calls["n"], first_cb_ns=calls["first"], last_cb_ns=calls["last"])


async def sessions(fake, script, n, report):
    """`n` clients at once, each through one echo turn, all held open and idle while the RSS
    is read, then all disconnected."""
    rss_before = proc_status_kib("VmRSS")
    cpu_start = cpu_self_s()
    start = time.monotonic_ns()
    ready = asyncio.Event()
    release = asyncio.Event()
    done = {"n": 0}
    errors = []

    async def one():
        client = ClaudeSDKClient(options=options(fake, script))
        try:
            await client.connect()
            await client.query(PROMPT)
            result = False
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    result = True
            if not result:
                raise RuntimeError("the turn ended without a result")
            done["n"] += 1
        except Exception as err:  # reported, not raised: one failure must not hide the rest
            errors.append(f"{type(err).__name__}: {err}")
        finally:
            if done["n"] + len(errors) == n:
                ready.set()
            await release.wait()
            try:
                await client.disconnect()
            except Exception as err:
                errors.append(f"disconnect: {type(err).__name__}: {err}")

    tasks = [asyncio.create_task(one()) for _ in range(n)]
    if n:
        await ready.wait()
    ready_ns = time.monotonic_ns()
    rss_idle = proc_status_kib("VmRSS")
    sessions_done = done["n"]
    release.set()
    await asyncio.gather(*tasks)
    report.update(
        start_ns=start,
        first_ns=ready_ns,
        end_ns=time.monotonic_ns(),
        cpu_start_s=cpu_start,
        cpu_end_s=cpu_self_s(),
        sessions=sessions_done,
        failures=len(errors),
        rss_before_kib=rss_before,
        rss_idle_kib=rss_idle,
    )
    if errors:
        report.update(ok=False, error=errors[0])


async def run(workload, fake, script, n, report):
    if workload in ("flood", "startup"):
        await drain(options(fake, script), report)
    elif workload == "slowflood":
        await drain(options(fake, script), report, slow=True)
    elif workload == "roundtrip":
        await roundtrip(fake, script, report)
    elif workload == "sessions":
        await sessions(fake, script, n, report)
    else:
        raise ValueError(f"unknown workload `{workload}`")


def main():
    report = {"main_ns": MAIN_NS}
    try:
        workload, fake, script, n = sys.argv[1:]
        asyncio.run(run(workload, fake, script, int(n), report))
    except BaseException as err:  # the harness wants a line, whatever happened
        report.update(ok=False, error=f"{type(err).__name__}: {err}")
    report.setdefault("ok", True)
    report.update(cpu_s=cpu_self_s(), hwm_kib=proc_status_kib("VmHWM"))
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
