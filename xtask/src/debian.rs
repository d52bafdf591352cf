//! Chromium for the browser test of `ccwire view`: `$CCWIRE_CHROMIUM`, else `chromium` on
//! `PATH`, else Debian's `chromium` package installed with `apt-get` (as root; the machine's
//! package cache keeps it between runs).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Result};

/// The environment variable that names the browser for the tests.
pub const CHROMIUM_ENV: &str = "CCWIRE_CHROMIUM";

/// Finds Chromium, installing it first if needed.
pub fn install_chromium() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(CHROMIUM_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    if let Some(path) = on_path() {
        return Ok(path);
    }
    eprintln!("installing Chromium (Debian's `chromium`) for the browser test");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !apt(&["install", "-y", "-qq", "chromium"]) {
        // A fresh machine has no package lists yet.
        if !(apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", "chromium"])) {
            bail!("could not install Chromium with apt-get (as root); set {CHROMIUM_ENV} to a Chromium or Chrome executable");
        }
    }
    match on_path() {
        Some(path) => Ok(path),
        None => bail!("apt-get installed chromium, but it is not on PATH"),
    }
}

fn on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|candidate| candidate.is_file())
}
