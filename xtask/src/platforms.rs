//! `cargo xtask platforms`: every published crate built and linted for Windows and macOS on
//! this Linux machine (`cargo clippy -D warnings`, which type-checks as `cargo check` does, so
//! one pass gives both). What runs where, and what only a real Windows or macOS machine can
//! prove: docs/platforms.md.
//!
//! Build scripts compile C for the target (ring, psm): MinGW's gcc for Windows, clang for
//! macOS. There is no macOS SDK here, so clang gets no system headers (`-nostdlibinc`, and
//! `-ffreestanding` so that its own intrinsics headers ask for none): ring builds without them
//! when told so (`RING_CORE_NOSTDLIBINC`, its own switch for cross-building) and wants only
//! `TargetConditionals.h`, which a four-line stand-in gives.
//! Nothing built this way is linked: a check needs the objects to exist, not to run.
//!
//! Then the Windows tests that matter most run under Wine: the protocol crate's unit tests, the
//! SDK's process code (the Job Object, the stop ladder, discovery) and session names, the
//! permission rules' Windows paths against Wine's file system, and the host driving
//! `fake-claude.exe` (a session, a crash, the stop ladder, the job, a `claude.cmd` shim).
//! Wine's server outlives the programs it ran: the prefix's is stopped at the end. Rust's
//! standard library wants `ProcessPrng` from `bcryptprimitives.dll`, which Debian's Wine (8)
//! lacks: a stand-in built from ten lines of C with MinGW, calling `RtlGenRandom`, is put
//! beside the test programs.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use crate::cmd::run;
use crate::{cargo, debian};

/// The crates published from the workspace: what users build (bench and xtask are tools of
/// this repository, Linux only).
pub const PACKAGES: [&str; 7] = [
    "twinwire-protocol",
    "twinwire-policy",
    "twinwire",
    "twinwire-model-server",
    "twinwire-cli",
    "twinwire-testkit",
    "twinwire-agent",
];

/// A target and which of its build targets are checked.
pub struct Target {
    pub triple: &'static str,
    /// Cargo's target selection.
    pub scope: &'static [&'static str],
    /// Why this selection, for the log.
    pub why: &'static str,
}

/// The targets checked, each with no more than it needs: on Windows the libraries and
/// programs with their unit tests (`--profile test`: checked as their test builds, which hold
/// all their code; the integration tests drive Unix signals and shells); on Apple silicon
/// everything; on Intel macOS as on Windows (the same code as on Apple silicon, which differs
/// by architecture only).
pub const TARGETS: [Target; 3] = [
    Target {
        triple: "x86_64-pc-windows-gnu",
        scope: &["--lib", "--bins", "--profile", "test"],
        why: "libraries and programs, their unit tests included",
    },
    Target {
        triple: "aarch64-apple-darwin",
        scope: &["--all-targets"],
        why: "every target, tests included",
    },
    Target {
        triple: "x86_64-apple-darwin",
        scope: &["--lib", "--bins", "--profile", "test"],
        why: "libraries and programs, their unit tests included",
    },
];

/// The stand-in for the macOS SDK's `TargetConditionals.h` (see the module docs).
const TARGET_CONDITIONALS: &str = "#define TARGET_OS_OSX 1\n#define TARGET_OS_MAC 1\n\
     #define TARGET_OS_IPHONE 0\n#define TARGET_OS_IOS 0\n";

/// What the checks build, beside the host's builds: a directory per target, and the Wine
/// prefix and stand-ins under `platforms/`.
pub fn build_dirs(root: &Path) -> Vec<std::path::PathBuf> {
    let target = crate::sdks::target_dir(root);
    TARGETS
        .iter()
        .map(|t| target.join(t.triple))
        .chain([target.join("platforms")])
        .collect()
}

/// Runs clippy with `-D warnings` on [`PACKAGES`] for each of [`TARGETS`], then the Windows
/// unit tests under Wine.
pub fn check(root: &Path) -> Result<()> {
    let mingw = debian::MINGW.install()?;
    let clang = debian::CLANG.install()?;
    let llvm_ar = debian::LLVM_AR.install()?;
    add_targets()?;
    let include = crate::sdks::target_dir(root).join("platforms/apple-include");
    std::fs::create_dir_all(&include).with_context(|| format!("creating {}", include.display()))?;
    std::fs::write(include.join("TargetConditionals.h"), TARGET_CONDITIONALS)?;
    for target in &TARGETS {
        let started = std::time::Instant::now();
        eprintln!("platforms: clippy for {} ({})", target.triple, target.why);
        let mut command = Command::new(cargo());
        command
            .current_dir(root)
            .args(["clippy", "--locked", "--target", target.triple])
            .args(target.scope);
        for package in PACKAGES {
            command.args(["-p", package]);
        }
        command.args(["--", "-D", "warnings"]);
        let var = |what: &str| format!("{what}_{}", target.triple.replace('-', "_"));
        if target.triple.ends_with("windows-gnu") {
            command.env(var("CC"), &mingw);
        } else {
            command.env(var("CC"), &clang).env(var("AR"), &llvm_ar).env(
                var("CFLAGS"),
                format!(
                    "-ffreestanding -nostdlibinc -DRING_CORE_NOSTDLIBINC=1 -isystem {}",
                    include.display()
                ),
            );
        }
        run(&mut command).with_context(|| format!("the check for {}", target.triple))?;
        eprintln!(
            "platforms: {} clean in {:.0?}",
            target.triple,
            started.elapsed()
        );
    }
    wine_tests(root, &mingw)
}

/// A test run under Wine: a package, Cargo's selection of its test targets, the filters.
struct WineTest {
    package: &'static str,
    targets: &'static [&'static str],
    filters: &'static [&'static str],
}

/// The Windows tests run under Wine (see the module docs): the protocol crate's unit tests,
/// twinwire's process code and session names, the permission rules' Windows paths against
/// Wine's case-insensitive drive, and the host against `fake-claude.exe` (the process tests
/// that matter on Windows: a session, a crash, the stop ladder, the job, a `claude.cmd` shim).
const WINE_TESTS: [WineTest; 4] = [
    WineTest {
        package: "twinwire-protocol",
        targets: &["--lib"],
        filters: &[],
    },
    WineTest {
        package: "twinwire",
        targets: &["--lib"],
        filters: &["host::process", "sessions::store"],
    },
    WineTest {
        package: "twinwire-policy",
        targets: &["--lib", "--test", "case", "--test", "windows_files"],
        filters: &[],
    },
    WineTest {
        package: "twinwire-testkit",
        targets: &["--test", "host"],
        filters: &["windows::"],
    },
];

/// `ProcessPrng` for Wines that lack it (see the module docs).
const PROCESS_PRNG: &str = "#include <windows.h>\n\
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);\n\
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {\n\
    while (len > 0) {\n\
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;\n\
        if (!SystemFunction036(data, chunk)) return FALSE;\n\
        data += chunk; len -= chunk;\n\
    }\n\
    return TRUE;\n\
}\n";

fn wine_tests(root: &Path, mingw: &Path) -> Result<()> {
    let wine = debian::WINE.install()?;
    let started = std::time::Instant::now();
    let target = "x86_64-pc-windows-gnu";
    let work = crate::sdks::target_dir(root).join("platforms");
    let source = work.join("bcryptprimitives.c");
    let definitions = work.join("bcryptprimitives.def");
    std::fs::write(&source, PROCESS_PRNG)?;
    std::fs::write(
        &definitions,
        "LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n",
    )?;
    let deps = crate::sdks::target_dir(root)
        .join(target)
        .join("debug/deps");
    std::fs::create_dir_all(&deps)?;
    run(Command::new(mingw)
        .args(["-shared", "-O2", "-o"])
        .arg(deps.join("bcryptprimitives.dll"))
        .arg(&source)
        .arg(&definitions)
        .arg("-ladvapi32"))
    .context("building the ProcessPrng stand-in")?;
    // Beside the programs the tests start too (`fake-claude.exe`).
    let programs = deps.parent().unwrap_or(&deps).join("bcryptprimitives.dll");
    std::fs::copy(deps.join("bcryptprimitives.dll"), &programs)
        .with_context(|| format!("copying the ProcessPrng stand-in to {}", programs.display()))?;
    let prefix = work.join("wine");
    let mut outcome = Ok(());
    for test in &WINE_TESTS {
        let package = test.package;
        eprintln!(
            "platforms: {package}'s tests under Wine ({})",
            test.targets.join(" ")
        );
        let ran = run(Command::new(cargo())
            .current_dir(root)
            .env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER", &wine)
            .env("CC_x86_64_pc_windows_gnu", mingw)
            // Less to write: no debug info for these builds.
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .env("WINEPREFIX", &prefix)
            .env("WINEDEBUG", "-all")
            .args(["test", "--locked", "--target", target, "-p", package])
            .args(test.targets)
            .arg("--")
            .args(test.filters))
        .with_context(|| format!("{package}'s tests under Wine"));
        if ran.is_err() {
            outcome = ran;
            break;
        }
    }
    // Wine's server outlives the programs it ran (and holds what they left): stop this
    // prefix's, whatever the tests did.
    // (It fails when the server has already gone by itself: only not starting it is news.)
    if let Err(err) = Command::new(wineserver(&wine))
        .arg("-k")
        .env("WINEPREFIX", &prefix)
        .status()
    {
        eprintln!(
            "platforms: could not run wineserver -k for {}: {err}",
            prefix.display()
        );
    }
    outcome?;
    eprintln!(
        "platforms: Windows tests passed under Wine in {:.0?}",
        started.elapsed()
    );
    Ok(())
}

/// Wine's server beside `wine` (Debian installs both in `/usr/bin`), else the one on `PATH`.
fn wineserver(wine: &Path) -> std::path::PathBuf {
    let beside = wine.with_file_name("wineserver");
    if beside.is_file() {
        beside
    } else {
        "wineserver".into()
    }
}

/// Adds the Rust targets rustup does not have yet (the standard library for each).
fn add_targets() -> Result<()> {
    let output = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("starting rustup")?;
    let installed = String::from_utf8_lossy(&output.stdout);
    let missing: Vec<&str> = TARGETS
        .iter()
        .map(|t| t.triple)
        .filter(|triple| !installed.lines().any(|line| line.trim() == *triple))
        .collect();
    if !missing.is_empty() {
        run(Command::new("rustup")
            .args(["target", "add"])
            .args(&missing))?;
    }
    Ok(())
}
