//! The disk `cargo xtask test` takes: what each step added to the target directory, said as it
//! goes, and the builds that only one step uses taken away once it has passed (the packages'
//! verification builds, the MSRV toolchain's, the other platforms', the semver check's), so that
//! a full run ends with the builds the suites share and little else. `--keep-builds` keeps them
//! for a faster next run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;

/// The directories of a profile's build where Cargo puts one entry per unit it builds.
const UNIT_DIRS: [&str; 4] = ["deps", "build", ".fingerprint", "examples"];

/// The size of everything under `path` in bytes (what is there to read of it); links are not
/// followed.
pub fn size(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| size(&entry.path()))
        .sum()
}

/// `12.3 GB`.
pub fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// Says the target directory's size after `step`, and what the step added. The semver
/// check's builds, which grow beside the suites and go at the end, are not counted.
pub struct Meter {
    target: PathBuf,
    beside: PathBuf,
    last: u64,
}

impl Meter {
    pub fn new(root: &Path) -> Self {
        let mut meter = Self {
            target: crate::sdks::target_dir(root),
            beside: crate::semver::build_dir(root),
            last: 0,
        };
        meter.last = meter.now();
        eprintln!(
            "disk: {} is {} before the run",
            meter.target.display(),
            gigabytes(meter.last)
        );
        meter
    }

    /// Prints `disk: target/ is 9.1 GB (+2.3 GB by workspace)`.
    pub fn after(&mut self, step: &str) {
        let now = self.now();
        let change = now as i64 - self.last as i64;
        eprintln!(
            "disk: {} is {} ({}{} by {step})",
            self.target.display(),
            gigabytes(now),
            if change < 0 { "-" } else { "+" },
            gigabytes(change.unsigned_abs())
        );
        self.last = now;
    }

    /// The size now, but for the semver check's builds.
    pub fn now(&self) -> u64 {
        size(&self.target).saturating_sub(size(&self.beside))
    }
}

/// The units a step builds into the shared profile directory, taken away after it: what was
/// not there when it began.
pub struct Sweep {
    profile: PathBuf,
    before: HashSet<PathBuf>,
}

impl Sweep {
    /// Notes what `target/debug` holds now.
    pub fn begin(root: &Path) -> Self {
        Self::at(crate::sdks::target_dir(root).join("debug"))
    }

    /// Notes what the profile directory `profile` holds now.
    fn at(profile: PathBuf) -> Self {
        let before = units(&profile).into_iter().collect();
        Self { profile, before }
    }

    /// Removes every unit built since [`Sweep::begin`] (unless `keep`); returns the bytes freed.
    pub fn end(self, keep: bool) -> Result<u64> {
        if keep {
            return Ok(0);
        }
        let mut freed = 0;
        for unit in units(&self.profile) {
            if !self.before.contains(&unit) {
                freed += size(&unit);
                remove(&unit)?;
            }
        }
        Ok(freed)
    }
}

/// Removes `paths` (those that exist) unless `keep`; returns the bytes freed.
pub fn remove_all(paths: &[PathBuf], keep: bool) -> Result<u64> {
    if keep {
        return Ok(0);
    }
    let mut freed = 0;
    for path in paths {
        if std::fs::symlink_metadata(path).is_ok() {
            freed += size(path);
            remove(path)?;
        }
    }
    Ok(freed)
}

fn remove(path: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        std::fs::remove_dir_all(path)?;
    } else {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

/// The entries of the unit directories of `profile`.
fn units(profile: &Path) -> Vec<PathBuf> {
    UNIT_DIRS
        .iter()
        .flat_map(|dir| {
            std::fs::read_dir(profile.join(dir))
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_takes_away_what_the_step_built_and_nothing_else() {
        let root = std::env::temp_dir().join(format!("xtask-sweep-{}", std::process::id()));
        let profile = root.join("target/debug");
        for dir in UNIT_DIRS {
            std::fs::create_dir_all(profile.join(dir)).unwrap();
        }
        std::fs::write(profile.join("deps/libold-1.rlib"), b"old").unwrap();
        std::fs::create_dir_all(profile.join(".fingerprint/old-1")).unwrap();
        // Not a unit directory: left alone.
        std::fs::write(profile.join("twinwire"), b"binary").unwrap();
        let sweep = Sweep::at(profile.clone());
        std::fs::write(profile.join("deps/libnew-2.rlib"), b"new!").unwrap();
        std::fs::create_dir_all(profile.join(".fingerprint/new-2")).unwrap();
        std::fs::write(profile.join(".fingerprint/new-2/lib"), b"fp").unwrap();
        std::fs::write(profile.join("twinwire"), b"relinked").unwrap();
        let freed = sweep.end(false).unwrap();
        assert_eq!(freed, 6);
        assert!(profile.join("deps/libold-1.rlib").exists());
        assert!(profile.join(".fingerprint/old-1").exists());
        assert!(!profile.join("deps/libnew-2.rlib").exists());
        assert!(!profile.join(".fingerprint/new-2").exists());
        assert!(profile.join("twinwire").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
