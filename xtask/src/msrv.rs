//! `cargo xtask msrv`: the libraries and binaries built with the oldest Rust the workspace
//! declares (`rust-version` in the root Cargo.toml), so the declaration stays true.
//! Dev-dependencies may need a newer Rust: tests, examples and benchmarks are not built.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::cmd::run;

/// Installs the declared toolchain with rustup (minimal profile; a no-op when it is there)
/// and runs `cargo check --workspace --lib --bins --locked` with it.
pub fn check(root: &Path) -> Result<()> {
    let version = rust_version(root)?;
    let started = Instant::now();
    eprintln!("installing Rust {version} with rustup (minimal profile; the MSRV toolchain) …");
    run(Command::new("rustup").args(["toolchain", "install", &version, "--profile", "minimal"]))
        .context("installing the MSRV toolchain with rustup")?;
    eprintln!(
        "Rust {version} ready in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let checking = Instant::now();
    // `rustup run` rather than `cargo +V`: the `cargo` running xtask may not be rustup's proxy.
    run(Command::new("rustup")
        .current_dir(root)
        .args([
            "run",
            &version,
            "cargo",
            "check",
            "--workspace",
            "--lib",
            "--bins",
            "--locked",
        ])
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .env_remove("CARGO"))
    .with_context(|| {
        format!(
            "the workspace does not build with Rust {version}, its declared rust-version: raise \
             rust-version in Cargo.toml to the oldest that builds"
        )
    })?;
    eprintln!(
        "Rust {version} builds the libraries and binaries ({:.0} s)",
        checking.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `rust-version` of `[workspace.package]` in the root Cargo.toml.
pub fn rust_version(root: &Path) -> Result<String> {
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?;
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[workspace.package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("rust-version") {
                let value = value.trim_start().trim_start_matches('=').trim();
                return Ok(value.trim_matches('"').to_owned());
            }
        }
    }
    anyhow::bail!("no rust-version in [workspace.package] of Cargo.toml")
}
