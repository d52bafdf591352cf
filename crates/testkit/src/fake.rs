//! The `fake-claude` process: argv and environment, then the session, served by twinwire's
//! agent side ([`twinwire::agent::serve`]) on one thread.

mod control;
mod frames;
mod io;
mod mcp;
mod pending;
mod session;
mod state;
mod steps;
mod tools;
mod wire;

use std::sync::Arc;
use std::time::Duration;

use twinwire::engine::EngineConfig;

use crate::script::Script;
use io::{stderr_line, Recorder};
use session::Fake;
use state::{Config, FakeState};
use wire::{InputRecord, Output, Requests};

/// Default wait for the host's answer to a request the fake sends (permissions, hooks, MCP).
const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 30_000;

/// Run `fake-claude` with this process's argv, environment and stdio; returns the exit code.
pub(crate) fn run() -> i32 {
    let argv: Vec<String> = std::env::args().collect();
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rec = Arc::new(Recorder::open(
        std::env::var("TWINWIRE_FAKE_RECORD").ok().as_deref(),
    ));
    rec.start(&argv, &cwd);
    let script = match load_script() {
        Ok(script) => script,
        Err(err) => {
            stderr_line(&format!("fake-claude: {err}"));
            return 2;
        }
    };
    let config = Config {
        session_id: flag(&argv, &["--session-id", "--resume", "-r"]).unwrap_or_else(io::uuid),
        cwd,
        home: std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
        model: flag(&argv, &["--model"])
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| frames::DEFAULT_MODEL.into()),
        permission_mode: flag(&argv, &["--permission-mode"]).unwrap_or_else(|| "default".into()),
        reads_session_state: std::env::var("CLAUDE_CODE_SDK_READS_SESSION_STATE").as_deref()
            == Ok("1"),
        request_timeout: Duration::from_millis(
            std::env::var("TWINWIRE_FAKE_PERMISSION_TIMEOUT_MS")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(DEFAULT_REQUEST_TIMEOUT_MS),
        ),
    };
    // One thread: the `hang` step stops everything by blocking it, and a frame, a request and
    // its answer never race each other across threads.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            stderr_line(&format!("fake-claude: cannot start the runtime: {err}"));
            return 1;
        }
    };
    let requests = Arc::new(Requests::default());
    let shared = Arc::new(FakeState::new(script, config, Arc::clone(&requests)));
    let agent = Fake(Arc::clone(&shared));
    let record = InputRecord::new(requests, rec);
    let served = runtime.block_on(async move {
        // Inside the runtime: a pipe registers with its poller.
        twinwire::agent::Server::new(agent)
            .config(EngineConfig::default())
            .tap(move |line| record.line(line))
            .serve(wire::stdin(), Output::new())
            .await
    });
    if let Err(err) = served {
        stderr_line(&format!("fake-claude: {err}"));
        return 1;
    }
    shared.exit_code()
}

/// The script from `TWINWIRE_FAKE_SCRIPT`, or the echo script.
fn load_script() -> Result<Script, String> {
    let Some(path) = std::env::var_os("TWINWIRE_FAKE_SCRIPT") else {
        return Ok(Script::echo());
    };
    let path = std::path::PathBuf::from(path);
    let text = std::fs::read_to_string(&path)
        .map_err(|err| format!("cannot read script {}: {err}", path.display()))?;
    let script: Script = serde_json::from_str(&text)
        .map_err(|err| format!("bad script {}: {err}", path.display()))?;
    Ok(if script.turns.is_empty() {
        Script {
            turns: Script::echo().turns,
            ..script
        }
    } else {
        script
    })
}

/// The value of the first of these flags, as `--flag value` or `--flag=value`.
fn flag(argv: &[String], names: &[&str]) -> Option<String> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        for name in names {
            if arg == name {
                return args.next().cloned();
            }
            if let Some(value) = arg.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(value.to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::flag;

    #[test]
    fn flags_in_both_spellings() {
        let argv: Vec<String> = ["claude", "--verbose", "--model=haiku", "--resume", "abc"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(flag(&argv, &["--model"]).as_deref(), Some("haiku"));
        assert_eq!(
            flag(&argv, &["--session-id", "--resume"]).as_deref(),
            Some("abc")
        );
        assert_eq!(flag(&argv, &["--permission-mode"]), None);
    }
}
