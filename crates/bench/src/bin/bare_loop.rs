//! `bare-loop WORKLOAD FAKE SCRIPT N`: the baseline a host SDK is measured against. A blocking
//! loop over `BufRead::lines` that parses every line into a `serde_json::Value`, answers every
//! `can_use_tool` request "allow" at once, and closes stdin after the result. No runtime, no
//! typed messages, no timeouts: the least a host can do and still speak the protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::ChildStdin;

use serde_json::{json, Value};
use twinwire_bench::{cpu_self_s, monotonic_ns, spawn_fake, Args, Report, PROMPT};

fn main() {
    twinwire_bench::run_blocking(run)
}

fn run(args: &Args, report: &mut Report) -> std::io::Result<()> {
    let cpu_start = cpu_self_s();
    let start = monotonic_ns();
    let mut child = spawn_fake(args, &["--permission-prompt-tool=stdio"])?;
    let mut stdin = child.stdin.take();
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    if let Some(stdin) = stdin.as_mut() {
        let initialize = json!({"type": "control_request", "request_id": "init_1",
                                "request": {"subtype": "initialize", "hooks": null}});
        let user = json!({"type": "user", "message": {"role": "user", "content": PROMPT},
                          "parent_tool_use_id": null, "session_id": ""});
        writeln!(stdin, "{initialize}\n{user}")?;
        stdin.flush()?;
    }
    let (mut first, mut first_cb, mut last_cb) = (0, 0, 0);
    let (mut events, mut assistants, mut results, mut callbacks) = (0u64, 0u64, 0u64, 0u64);
    for line in BufReader::with_capacity(64 * 1024, stdout).lines() {
        let line = line?;
        if first == 0 {
            first = monotonic_ns();
        }
        let frame: Value = match serde_json::from_str(&line) {
            Ok(frame) => frame,
            Err(err) => {
                report.fail(format!("undecodable line: {err}"));
                continue;
            }
        };
        match frame["type"].as_str() {
            Some("stream_event") => events += 1,
            Some("assistant") => assistants += 1,
            Some("result") => {
                results += 1;
                stdin = None;
            }
            Some("control_request") if frame["request"]["subtype"] == "can_use_tool" => {
                let now = monotonic_ns();
                if callbacks == 0 {
                    first_cb = now;
                }
                last_cb = now;
                callbacks += 1;
                if let Some(stdin) = stdin.as_mut() {
                    allow(stdin, &frame)?;
                }
            }
            _ => {}
        }
    }
    drop(stdin);
    let status = child.wait()?;
    if !status.success() {
        report.fail(format!("fake-claude exited with {status}"));
    }
    report.set("start_ns", start);
    report.set("first_ns", first);
    report.set("end_ns", monotonic_ns());
    report.set("cpu_start_s", cpu_start);
    report.set("cpu_end_s", cpu_self_s());
    report.set("stream_events", events);
    report.set("assistants", assistants);
    report.set("results", results);
    report.set("callbacks", callbacks);
    report.set("first_cb_ns", first_cb);
    report.set("last_cb_ns", last_cb);
    Ok(())
}

/// Answers a `can_use_tool` request: allow, with the input unchanged.
fn allow(stdin: &mut ChildStdin, request: &Value) -> std::io::Result<()> {
    let response = json!({
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request["request_id"],
            "response": {"behavior": "allow", "updatedInput": request["request"]["input"]}
        }
    });
    writeln!(stdin, "{response}")?;
    stdin.flush()
}
