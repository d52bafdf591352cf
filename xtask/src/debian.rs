//! Programs some tests drive, from Debian's packages: Chromium for the browser test of
//! `twinwire view`, tmux as the terminal of the `twinwire chat` test, sshd for the launcher tests,
//! `ip` for the fleet test's network namespaces,
//! strace and bubblewrap for the differential test of the permission rules, the C compilers of
//! the checks for Windows and macOS and Wine for the Windows tests (`cargo xtask platforms`). Each is found at
//! its environment variable, else on `PATH`, else installed with `apt-get` (as root, without
//! the packages Debian recommends beside it; the machine's package cache keeps it between runs).

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
    /// What installing it does besides adding the program, if anything.
    pub side_effects: &'static str,
}

/// Chromium, for the browser test of `twinwire view`.
pub const CHROMIUM: Program = Program {
    binary: "chromium",
    package: "chromium",
    env: "TWINWIRE_CHROMIUM",
    purpose: "the browser of the `twinwire view` test",
    side_effects: "",
};

/// tmux, a real terminal for the `twinwire chat` test.
pub const TMUX: Program = Program {
    binary: "tmux",
    package: "tmux",
    env: "TWINWIRE_TMUX",
    purpose: "the terminal of the `twinwire chat` test",
    side_effects: "",
};

/// sshd (with ssh and ssh-keygen), the far side of the `--via ssh` tests.
pub const SSHD: Program = Program {
    binary: "sshd",
    package: "openssh-server",
    env: "TWINWIRE_SSHD",
    purpose: "the private sshd of the launcher tests",
    side_effects:
        "the package writes /etc/ssh and host keys and may start a system sshd; the tests \
                   run their own on 127.0.0.1",
};

/// iproute2's `ip`, which makes the network namespaces (each with its own sshd) that the
/// fleet test uses as hosts.
pub const IPROUTE: Program = Program {
    binary: "ip",
    package: "iproute2",
    env: "TWINWIRE_IP",
    purpose: "the network namespaces of the fleet test",
    side_effects: "",
};

/// strace, which records every program the differential test's commands execute.
pub const STRACE: Program = Program {
    binary: "strace",
    package: "strace",
    env: "TWINWIRE_STRACE",
    purpose: "the tracer of the permission rules' differential test",
    side_effects: "",
};

/// bubblewrap, the throwaway sandbox the differential test runs commands in (and Claude Code's
/// own sandbox on Linux).
pub const BWRAP: Program = Program {
    binary: "bwrap",
    package: "bubblewrap",
    env: "TWINWIRE_BWRAP",
    purpose: "the sandbox of the permission rules' differential test",
    side_effects: "",
};

/// socat, which Claude Code's own sandbox needs beside bubblewrap on Linux (its network proxy).
pub const SOCAT: Program = Program {
    binary: "socat",
    package: "socat",
    env: "TWINWIRE_SOCAT",
    purpose: "Claude Code's sandbox in the conformance scenario that shows it",
    side_effects: "",
};

/// The MinGW C compiler, for the C in build scripts (ring) when checking for Windows.
pub const MINGW: Program = Program {
    binary: "x86_64-w64-mingw32-gcc",
    package: "gcc-mingw-w64-x86-64",
    env: "TWINWIRE_MINGW_GCC",
    purpose: "the C compiler of the Windows check",
    side_effects: "",
};

/// clang, for the C in build scripts (ring, psm) when checking for macOS.
pub const CLANG: Program = Program {
    binary: "clang",
    package: "clang",
    env: "TWINWIRE_CLANG",
    purpose: "the C compiler of the macOS checks",
    side_effects: "",
};

/// llvm-ar, the archiver that goes with clang for the macOS checks.
pub const LLVM_AR: Program = Program {
    binary: "llvm-ar",
    package: "llvm",
    env: "TWINWIRE_LLVM_AR",
    purpose: "the archiver of the macOS checks",
    side_effects: "",
};

/// Wine, which runs the Windows unit tests of the process code.
pub const WINE: Program = Program {
    binary: "wine",
    package: "wine",
    env: "TWINWIRE_WINE",
    purpose: "the Windows unit tests",
    side_effects: "",
};

/// Every program `cargo xtask test` needs from Debian.
pub const ALL: [Program; 11] = [
    CHROMIUM, TMUX, SSHD, IPROUTE, STRACE, BWRAP, SOCAT, MINGW, CLANG, LLVM_AR, WINE,
];

impl Program {
    /// Finds the program, installing its package first if needed.
    pub fn install(&self) -> Result<PathBuf> {
        let path = self.find()?;
        eprintln!("{}: {}", self.purpose, path.display());
        Ok(path)
    }

    /// Where the program already is: its variable (which must name an existing file), else
    /// `PATH`; `None` when it must be installed.
    pub fn present(&self) -> Result<Option<PathBuf>> {
        if let Some(path) = std::env::var_os(self.env).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(path);
            if !path.is_file() {
                bail!(
                    "{} is set to {}, which is no file",
                    self.env,
                    path.display()
                );
            }
            return Ok(Some(path));
        }
        Ok(self.on_path())
    }

    fn find(&self) -> Result<PathBuf> {
        if let Some(path) = self.present()? {
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
        // Without the packages Debian recommends beside it: Chromium and Wine alone bring
        // about 180 more (fonts, sound, desktop integration), which no test uses.
        let install = [
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            self.package,
        ];
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
