//! What the `ccwire` binary's test targets share: the binary under test, the fake CLI beside
//! it, and shell quoting for the wrapper scripts they write.
// Each test target uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The `ccwire` binary under test.
pub fn ccwire() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ccwire"))
}

/// The `fake-claude` binary next to `ccwire`, built (once per test run) so it is current.
pub fn fake_claude() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = ccwire().with_file_name(format!("fake-claude{}", std::env::consts::EXE_SUFFIX));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "-p", "ccwire-testkit", "--bin", "fake-claude"]);
        let profile = ccwire().parent().and_then(Path::file_name);
        if profile.is_some_and(|name| name == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("running cargo build");
        assert!(
            status.success() || path.exists(),
            "building fake-claude failed"
        );
        assert!(path.exists(), "no fake-claude at {}", path.display());
        path
    })
}

/// `path` quoted for `sh`.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
