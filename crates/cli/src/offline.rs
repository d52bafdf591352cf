//! `--offline`: the scripted model server in this process, and a private home for the CLI, so
//! that a machine without credentials sees a real tool-using turn. Also `ccwire model-server`.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use ccwire_model_server::{ModelScript, ModelServer};

/// A running offline setup; the server stops and the directory goes when it is dropped.
pub struct Offline {
    server: ModelServer,
    home: tempfile::TempDir,
}

impl Offline {
    /// Starts a server for `script` and makes the private home.
    pub async fn start(script: ModelScript) -> anyhow::Result<Self> {
        let home = tempfile::Builder::new()
            .prefix("ccwire-offline-")
            .tempdir()
            .context("creating a private HOME for --offline")?;
        std::fs::create_dir_all(home.path().join("tmp"))
            .context("creating a private TMPDIR for --offline")?;
        let server = ModelServer::start(script)
            .await
            .context("starting the offline model server")?;
        Ok(Self { server, home })
    }

    /// The CLI's configuration directory in the private home (its saved sessions).
    pub fn config_dir(&self) -> PathBuf {
        self.home.path().join(".claude")
    }

    /// The model server's base URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The variables the CLI runs with: a private home and temp directory, the local server
    /// as the API, a placeholder key, and no traffic anywhere else.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let home: PathBuf = self.home.path().to_owned();
        let tmp = home.join("tmp");
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("HOME".into(), home.clone().into()),
            ("USERPROFILE".into(), home.into()),
            ("TMPDIR".into(), tmp.clone().into()),
            ("CLAUDE_CODE_TMPDIR".into(), tmp.into()),
        ];
        for (key, value) in [
            ("ANTHROPIC_BASE_URL", self.url()),
            ("ANTHROPIC_API_KEY", "offline-demo-key".to_owned()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("DISABLE_TELEMETRY", "1".to_owned()),
            ("DISABLE_AUTOUPDATER", "1".to_owned()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
        ] {
            vars.push((key.into(), value.into()));
        }
        vars
    }

    /// Variables of the user's environment that would send the CLI elsewhere or log it in.
    pub fn env_removed() -> [&'static str; 5] {
        [
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "CLAUDE_CODE_USE_VERTEX",
            "CLAUDE_CONFIG_DIR",
        ]
    }
}

/// Options of `ccwire model-server`.
#[derive(Debug, clap::Args)]
pub struct ModelServerArgs {
    /// The model script (JSON) to serve.
    #[arg(long, value_name = "FILE")]
    pub script: PathBuf,
    /// The port to listen on (default: any free port).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
}

/// Runs the model server until Ctrl-C, printing its URL on stdout.
pub fn model_server(args: &ModelServerArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let script = ModelScript::from_file(&args.script)
            .with_context(|| format!("reading {}", args.script.display()))?;
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
