//! `--offline`: the scripted model server in this process, a private home for the CLI, and a
//! configuration directory of twinwire's own where offline sessions are kept, so that a machine
//! without credentials sees a real tool-using turn and can list, show and resume it later.
//! Also `twinwire model-server`, and where `twinwire sessions` and `twinwire view` look ([`stores`]).

pub mod command;
pub mod stores;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use twinwire_model_server::{ModelScript, ModelServer};

pub use stores::session_stores;

/// A running offline setup; the server stops and the private home goes when it is dropped.
/// The configuration directory stays: it holds the saved sessions.
pub struct Offline {
    server: ModelServer,
    home: tempfile::TempDir,
    config_dir: PathBuf,
}

impl Offline {
    /// Starts a server for `script`, makes the private home and, if missing, the
    /// configuration directory of offline sessions ([`sessions_dir`]).
    pub async fn start(script: ModelScript) -> anyhow::Result<Self> {
        let config_dir = sessions_dir().ok_or_else(|| {
            anyhow!(
                "no directory for offline sessions: set HOME or XDG_STATE_HOME (they are kept \
                 in $XDG_STATE_HOME/twinwire/offline, else ~/.local/state/twinwire/offline)"
            )
        })?;
        private_dir(&config_dir)
            .with_context(|| format!("creating {} for offline sessions", config_dir.display()))?;
        let home = tempfile::Builder::new()
            .prefix("twinwire-offline-")
            .tempdir()
            .context("creating a private HOME for --offline")?;
        std::fs::create_dir_all(home.path().join("tmp"))
            .context("creating a private TMPDIR for --offline")?;
        let server = ModelServer::start(script)
            .await
            .context("starting the offline model server")?;
        Ok(Self {
            server,
            home,
            config_dir,
        })
    }

    /// The CLI's configuration directory (`CLAUDE_CONFIG_DIR`): the saved sessions.
    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// The model server's base URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The private home (deleted when this is dropped).
    #[cfg(unix)]
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Stops the server, then removes the private home.
    pub async fn shutdown(self) {
        self.server.shutdown().await;
        drop(self.home);
    }

    /// The variables the CLI runs with: a private home and temp directory (none of the user's
    /// settings or credentials), twinwire's configuration directory for offline sessions, and
    /// [`Offline::api_env`].
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let home: PathBuf = self.home.path().to_owned();
        let tmp = home.join("tmp");
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("HOME".into(), home.clone().into()),
            ("USERPROFILE".into(), home.into()),
            ("TMPDIR".into(), tmp.clone().into()),
            ("CLAUDE_CODE_TMPDIR".into(), tmp.into()),
            ("CLAUDE_CONFIG_DIR".into(), self.config_dir.clone().into()),
        ];
        vars.extend(self.api_env());
        vars
    }

    /// The local server as the API, a placeholder key, and no traffic anywhere else (no
    /// retries either: a failure of the script shows at once).
    pub fn api_env(&self) -> Vec<(OsString, OsString)> {
        [
            ("ANTHROPIC_BASE_URL", self.url()),
            ("ANTHROPIC_API_KEY", "offline-demo-key".to_owned()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("DISABLE_TELEMETRY", "1".to_owned()),
            ("DISABLE_AUTOUPDATER", "1".to_owned()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
        ]
        .into_iter()
        .map(|(key, value)| (key.into(), value.into()))
        .collect()
    }

    /// Variables of the user's environment that would send the CLI elsewhere or log it in.
    pub fn env_removed() -> [&'static str; 4] {
        [
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "CLAUDE_CODE_USE_VERTEX",
        ]
    }
}

/// twinwire's state directory: `$XDG_STATE_HOME/twinwire`, else `~/.local/state/twinwire`; `None`
/// without either variable.
pub fn state_dir() -> Option<PathBuf> {
    // A relative XDG_STATE_HOME is to be ignored (the XDG base directory specification).
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("twinwire"))
}

/// The configuration directory the CLI gets offline: `<state>/offline` ([`state_dir`]).
pub fn sessions_dir() -> Option<PathBuf> {
    state_dir().map(|dir| dir.join("offline"))
}

/// Creates `dir` (and its missing parents) readable by the user only, and narrows it to that
/// if it exists: transcripts hold whole conversations.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let mode = std::fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }
    // Elsewhere the directory inherits the access list of the user's profile, where the state
    // directory lives (docs/platforms.md).
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Reads a model script; an error names the file and where the format is described.
pub fn read_script(path: &Path) -> anyhow::Result<ModelScript> {
    ModelScript::from_file(path).map_err(|err| match err.kind() {
        // The parse error names the file and the place in it already.
        std::io::ErrorKind::InvalidData => {
            anyhow!("{err} (the format: twinwire model-server --help)")
        }
        _ => anyhow!("reading the model script {}: {err}", path.display()),
    })
}

/// Options of `twinwire model-server`.
#[derive(Debug, clap::Args)]
#[command(after_help = SCRIPT_HELP)]
pub struct ModelServerArgs {
    /// The model script (JSON) to serve; its format is below.
    #[arg(long, value_name = "FILE")]
    pub script: PathBuf,
    /// The port to listen on (default: any free port).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
}

/// The model script's format, shown by `twinwire model-server --help` (where `run --help` and
/// `chat --help` send the reader) and in docs/model-server.md.
const SCRIPT_HELP: &str = r#"MODEL SCRIPT (JSON):
  {"rules": [RULE, ...], "default": REPLY, "model": "NAME"}
  Every request to the model gets the reply of the first rule whose `when` holds and that
  has answered fewer than `times` requests, else `default` (when absent: echo). `model`
  (optional) is the model name put in replies. Conditions look at the request's content,
  never at the order of requests (the CLI also makes side requests, e.g. a title).

  RULE       {"when": CONDITION, "reply": REPLY, "times": N}   (times: optional, no limit)
  CONDITION  an object with one key; text tests are case-sensitive substring tests:
    last_prompt_contains TEXT     the last user message's last text (use it for prompts)
    last_user_text_contains TEXT  all text of the last user message
    last_is_tool_result BOOL      the last user message ends with a tool result
    tool_result_contains TEXT     ... whose text contains TEXT
    tool_result_is_error BOOL     ... that is an error (a failure or a denial)
    conversation_contains TEXT    any message's text, reminders, tool results and inputs
    first_turn BOOL               no assistant message yet (false once a session goes on)
    system_contains TEXT, model_is NAME, has_tool NAME, max_tokens_at_most N
    all [CONDITION, ...], any [CONDITION, ...], not CONDITION, always BOOL
  REPLY      an object with one key:
    text TEXT                     a text answer
    tool_use {"name", "input", "text"}   a tool call (text: optional, said before it)
    error {"status", "type", "message"}  an HTTP error (type, message: optional)
    slow_text {"text", "deltas", "delay_ms"}   text streamed in pieces (to interrupt)
    json VALUE                    a text answer that is VALUE serialized
    echo true                     "You said: <the last prompt>"
    refusal {"text", "category", "explanation"}   text the safeguards stop (stop_reason refusal)
    usage_limit {"reset_in_seconds", "claim"}   a 429 usage limit resetting then (claim: optional)

EXAMPLE (a Bash call for a prompt with TOUCH, then a text once its result is back):
  {"rules": [
     {"when": {"last_is_tool_result": true}, "reply": {"text": "Done: x is there."}},
     {"when": {"last_prompt_contains": "TOUCH"},
      "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch x"},
                             "text": "Creating x."}}}
   ],
   "default": {"echo": true}}

  twinwire run --offline --model-script script.json --allow 'Bash(touch:*)' 'TOUCH x'
  twinwire model-server --script script.json   # then ANTHROPIC_BASE_URL=<the URL> claude ..."#;

/// Runs the model server until Ctrl-C, printing its URL on stdout.
pub fn model_server(args: &ModelServerArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let script = read_script(&args.script)?;
        let server = match args.port {
            Some(port) => ModelServer::start_on(script, port).await,
            None => ModelServer::start(script).await,
        }
        .context("starting the model server")?;
        // Listen before the URL is out, so that a Ctrl-C right after it is not lost.
        let mut interrupts = crate::terminal::Interrupts::new().context("listening for Ctrl-C")?;
        writeln!(out, "{}", server.url())?;
        out.flush()?;
        interrupts.recv().await;
        server.shutdown().await;
        anyhow::Ok(())
    })
}
