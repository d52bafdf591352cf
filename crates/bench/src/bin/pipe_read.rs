//! `pipe-read WORKLOAD FAKE SCRIPT N`: the floor under every host. Sends the prompt, closes
//! stdin, and reads the fake's stdout to EOF in 64 KiB reads, counting lines; no parsing.

use std::io::{Read, Write};

use serde_json::json;
use twinwire_bench::{cpu_self_s, monotonic_ns, spawn_fake, Args, Report, PROMPT};

fn main() {
    twinwire_bench::run_blocking(run)
}

fn run(args: &Args, report: &mut Report) -> std::io::Result<()> {
    let cpu_start = cpu_self_s();
    let start = monotonic_ns();
    let mut child = spawn_fake(args, &[])?;
    if let Some(mut stdin) = child.stdin.take() {
        let user = json!({"type": "user", "message": {"role": "user", "content": PROMPT},
                          "parent_tool_use_id": null, "session_id": ""});
        writeln!(stdin, "{user}")?;
    }
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    let mut buffer = vec![0u8; 64 * 1024];
    let (mut first, mut lines, mut bytes) = (0, 0u64, 0u64);
    loop {
        let n = stdout.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        if first == 0 {
            first = monotonic_ns();
        }
        bytes += n as u64;
        lines += buffer[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    let status = child.wait()?;
    if !status.success() {
        report.fail(format!("fake-claude exited with {status}"));
    }
    report.set("start_ns", start);
    report.set("first_ns", first);
    report.set("end_ns", monotonic_ns());
    report.set("cpu_start_s", cpu_start);
    report.set("cpu_end_s", cpu_self_s());
    report.set("lines", lines);
    report.set("bytes", bytes);
    Ok(())
}
