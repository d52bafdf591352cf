//! One build of the workspace for every suite of `cargo xtask test`.
//!
//! Cargo resolves the features of the dependencies per invocation, over the packages it is
//! given and, when tests or examples are built, their dev-dependencies (workspace-wide
//! unification, `resolver.feature-unification`, is unstable). `cargo test -p A` and
//! `cargo build -p B --bin b` therefore build tokio, hyper, reqwest and everything above them
//! once each, and overwrite each other's binaries. Here every host build goes through one
//! selection: the whole workspace, twinwire's `install` feature (the CLI turns it on anyway),
//! dev-dependencies resolved. A binary or example built this way is the very one the test run
//! built, so after it the suites find everything fresh.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::cmd::run;

/// The variable the workspace's test helpers read: set, every binary and example of the
/// workspace is built already (in this selection) and a helper that would build one for its
/// test takes it as it is; unset (a developer's `cargo test -p …`), they build it themselves.
pub const PREBUILT_ENV: &str = "TWINWIRE_PREBUILT";

/// `cargo SUBCOMMAND --workspace --features twinwire/install --locked` in `root`: the shared
/// selection.
pub fn workspace(root: &Path, subcommand: &str) -> Command {
    let mut command = Command::new(crate::cargo());
    command.current_dir(root).args([
        subcommand,
        "--workspace",
        "--features",
        "twinwire/install",
        "--locked",
    ]);
    command
}

/// Builds every binary and example of the workspace in the shared selection (what the test
/// helpers take when [`PREBUILT_ENV`] is set) and returns the directory they are in
/// (`target/debug`).
pub fn all(root: &Path) -> Result<PathBuf> {
    run(workspace(root, "build").args(["--bins", "--examples"]))?;
    Ok(crate::sdks::target_dir(root).join("debug"))
}
