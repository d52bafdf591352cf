//! Programs some tests drive, from Debian's packages: Chromium for the browser test of
//! `ccwire view`, tmux as the terminal of the `ccwire chat` test, sshd for the launcher tests. Each is found at its
//! environment variable, else on `PATH`, else installed with `apt-get` (as root; the machine's
//! package cache keeps it between runs).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Result};

/// A program a test needs.
pub struct Program {
    /// The executable's name on `PATH`.
    pub binary: &'static str,
    /// The Debian package that has it.
    pub package: &'static str,
    /// The environment variable that names it for the tests.
    pub env: &'static str,
    /// What it is for, for the log.
    pub purpose: &'static str,
}

/// Chromium, for the browser test of `ccwire view`.
pub const CHROMIUM: Program = Program {
    binary: "chromium",
    package: "chromium",
    env: "CCWIRE_CHROMIUM",
    purpose: "the browser of the `ccwire view` test",
};

/// tmux, a real terminal for the `ccwire chat` test.
pub const TMUX: Program = Program {
    binary: "tmux",
    package: "tmux",
    env: "CCWIRE_TMUX",
    purpose: "the terminal of the `ccwire chat` test",
};

/// sshd (with ssh and ssh-keygen), the far side of the `--via ssh` tests.
pub const SSHD: Program = Program {
    binary: "sshd",
    package: "openssh-server",
    env: "CCWIRE_SSHD",
    purpose: "the private sshd of the launcher tests",
};

impl Program {
    /// Finds the program, installing its package first if needed.
    pub fn install(&self) -> Result<PathBuf> {
        let path = self.find()?;
        eprintln!("{}: {}", self.purpose, path.display());
        Ok(path)
    }

    fn find(&self) -> Result<PathBuf> {
        if let Some(path) = std::env::var_os(self.env).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(path));
        }
        if let Some(path) = self.on_path() {
            return Ok(path);
        }
        eprintln!(
            "installing Debian's `{}` for {}",
            self.package, self.purpose
        );
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        let install = ["install", "-y", "-qq", self.package];
        // A fresh machine has no package lists yet.
        let installed = apt(&install) || (apt(&["update", "-qq"]) && apt(&install));
        if !installed {
            bail!(
                "could not install `{}` with apt-get (as root); set {} to its executable",
                self.package,
                self.env
            );
        }
        match self.on_path() {
            Some(path) => Ok(path),
            None => bail!("apt-get installed {}, but it is not on PATH", self.package),
        }
    }

    fn on_path(&self) -> Option<PathBuf> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        // Daemons live in sbin, which a user's PATH may lack.
        std::env::split_paths(&path)
            .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
            .map(|dir| dir.join(self.binary))
            .find(|candidate| candidate.is_file())
    }
}
