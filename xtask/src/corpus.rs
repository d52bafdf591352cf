//! The corpus of real commands for the permission rules' usability test: the community
//! cheatsheets the `cheat` package ships (PyPI, its source distribution), pinned by version
//! and sha256, downloaded with pip into twinwire's cache once and never committed.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd::run;
use crate::install::cache_base;

/// The package and version.
pub const PACKAGE: &str = "cheat==2.5.1";
/// Its source distribution's file and sha256.
const SDIST: &str = "cheat-2.5.1.tar.gz";
const SHA256: &str = "c537c0ead9f4cb47f0861818a36ce8f6fc844cd7fc2879479dfbb29a335f2ec6";

/// The directory of sheets, downloaded and checked first if needed.
pub fn sheets() -> Result<PathBuf> {
    let dir = cache_base()?.join("corpus").join("cheat-2.5.1");
    let sheets = dir.join("cheat-2.5.1/cheat/cheatsheets");
    if sheets.is_dir() {
        return Ok(sheets);
    }
    let scratch = dir.with_extension(format!("download-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    eprintln!("downloading the rules' corpus ({PACKAGE}'s sheets, from PyPI) …");
    run(Command::new("pip")
        .args([
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
        ])
        .arg(&scratch)
        .arg(PACKAGE))?;
    let tarball = scratch.join(SDIST);
    let output = Command::new("sha256sum")
        .arg(&tarball)
        .output()
        .context("running sha256sum")?;
    let sum = String::from_utf8_lossy(&output.stdout);
    if sum.split_whitespace().next() != Some(SHA256) {
        bail!("{SDIST} has sha256 {sum}, not the pinned {SHA256}");
    }
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(&scratch))?;
    let _ = std::fs::remove_file(&tarball);
    if let Err(err) = std::fs::rename(&scratch, &dir) {
        // Another run may have won the race.
        let _ = std::fs::remove_dir_all(&scratch);
        if !sheets.is_dir() {
            return Err(err).with_context(|| format!("moving the corpus into {}", dir.display()));
        }
    }
    Ok(sheets)
}
