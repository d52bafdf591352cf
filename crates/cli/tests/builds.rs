//! The binaries the test targets build for themselves beside `twinwire` (`common::built`:
//! fake-claude, the example agent, twinwire-agent) share their artifacts with a developer's own
//! `cargo build`: one after the other, neither recompiles anything of the other's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::SystemTime;

use common::{build_twinwire_agent, set_by_cargo_for_a_test, twinwire};

/// twinwire-agent's dependencies include ring, whose build script watches `CARGO_MANIFEST_DIR`
/// and `CARGO_PKG_*`, which Cargo sets for this test but a shell does not have. After a build
/// from a shell, the tests' own build must find everything fresh (with those variables it
/// recompiles ring, rustls, reqwest and twinwire-agent, and the shell's next build does it again).
#[test]
fn twinwire_agent_built_by_the_tests_after_a_build_from_a_shell_is_not_relinked() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut shell_build = Command::new(cargo);
    shell_build
        .args(["build", "-p", "twinwire-agent", "--bin", "twinwire-agent"])
        .stdout(Stdio::null());
    if twinwire()
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|profile| profile == "release")
    {
        shell_build.arg("--release");
    }
    // The environment this test had before Cargo added its package's variables.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_for_a_test) {
            shell_build.env_remove(name);
        }
    }
    assert!(
        shell_build.status().unwrap().success(),
        "cargo build -p twinwire-agent failed"
    );
    let agent =
        twinwire().with_file_name(format!("twinwire-agent{}", std::env::consts::EXE_SUFFIX));
    let before = modified(&agent);

    assert_eq!(build_twinwire_agent(), agent);

    assert_eq!(
        modified(&agent),
        before,
        "the tests' build of twinwire-agent rebuilt it after the same build from a shell"
    );
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}
