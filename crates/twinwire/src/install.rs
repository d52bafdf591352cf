//! Installing Claude Code from the npm registry into twinwire's cache (feature `install`).
//!
//! Claude Code 2.1.113 and newer ship as one native executable in a package per platform
//! (`@anthropic-ai/claude-code-linux-x64`, `…-darwin-arm64`, `…-win32-x64`, `…-linux-x64-musl`,
//! …). [`Installer::install`] reads that package's metadata from the registry, downloads its
//! tarball while hashing it, refuses it unless it matches the registry's `dist.integrity`
//! (sha512), unpacks the executable, checks that it answers `--version` with the version asked
//! for, and only then renames it into place:
//! [`pinned_cli_dir`]`(version)/claude` (`claude.exe` on Windows), where
//! [`discover`](crate::host::process::discover) looks for the pinned version. Everything
//! happens in a scratch directory beside the target that is removed whatever the outcome: an
//! interrupted or refused install leaves nothing in the cache. An installed version is served
//! from the cache without touching the network.
//!
//! The registry is `$npm_config_registry` (as npm reads it), else `https://registry.npmjs.org/`;
//! proxies come from `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` and certificates from the system's
//! store (`SSL_CERT_FILE` too), so a machine that reaches npm through an intercepting proxy
//! reaches it here as well.
//!
//! ```no_run
//! # async fn demo() -> Result<(), twinwire::install::InstallError> {
//! // No network when the pinned version is cached already.
//! let installed = twinwire::install::Installer::new().install().await?;
//! println!("claude {} at {}", installed.version, installed.path.display());
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::host::process::pinned_cli_dir;

mod fetch;
mod unpack;

pub use twinwire_protocol::CLAUDE_CODE_VERSION;

/// The registry used when `npm_config_registry` is not set.
pub const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org/";

/// The first Claude Code build shipped as a native executable; older ones are JavaScript
/// bundles that npm installs (`npm install -g @anthropic-ai/claude-code@VERSION`).
const FIRST_NATIVE: (u64, u64, u64) = (2, 1, 113);

/// The largest tarball accepted (2.1.330's is 175 MB).
const DEFAULT_MAX_DOWNLOAD: u64 = 1 << 30;

/// The largest executable accepted from a tarball (2.1.330's is 381 MB).
const MAX_EXECUTABLE: u64 = 2 << 30;

/// How long `claude --version` may take on a cold first start.
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// Installs Claude Code `version` from the npm registry into twinwire's cache (or finds it there)
/// and returns the path of its executable. [`Installer`] has the options.
pub async fn install_claude(version: &str) -> Result<PathBuf, InstallError> {
    Ok(Installer::new().version(version).install().await?.path)
}

/// How to install: which version, from which registry, into which cache.
#[derive(Debug, Clone)]
#[must_use]
pub struct Installer {
    version: String,
    registry: Option<String>,
    cache_dir: Option<PathBuf>,
    max_download: u64,
}

impl Default for Installer {
    fn default() -> Self {
        Self::new()
    }
}

impl Installer {
    /// The pinned version ([`CLAUDE_CODE_VERSION`]), the registry of the environment, twinwire's
    /// cache directory.
    pub fn new() -> Self {
        Self {
            version: CLAUDE_CODE_VERSION.to_owned(),
            registry: None,
            cache_dir: None,
            max_download: DEFAULT_MAX_DOWNLOAD,
        }
    }

    /// The version to install (`2.1.330`; 2.1.113 or newer).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The registry's URL, in place of `$npm_config_registry`.
    pub fn registry(mut self, url: impl Into<String>) -> Self {
        self.registry = Some(url.into());
        self
    }

    /// twinwire's cache directory, in place of `$TWINWIRE_CACHE_DIR`/`$XDG_CACHE_HOME/twinwire`/
    /// `~/.cache/twinwire` (the CLI goes to `<dir>/claude-code/<version>/`). Discovery reads only
    /// the environment's: a CLI installed elsewhere is found by its path.
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = Some(dir.into());
        self
    }

    /// The largest tarball to download (default 1 GiB); a larger one is refused.
    pub fn max_download(mut self, bytes: u64) -> Self {
        self.max_download = bytes;
        self
    }

    /// The directory the version is installed in.
    pub fn target_dir(&self) -> Result<PathBuf, InstallError> {
        match &self.cache_dir {
            Some(dir) => Ok(dir.join("claude-code").join(&self.version)),
            None => pinned_cli_dir(&self.version).ok_or(InstallError::NoCacheDir),
        }
    }

    /// The registry this installer reads.
    pub fn registry_url(&self) -> String {
        let configured = self.registry.clone().or_else(|| {
            ["npm_config_registry", "NPM_CONFIG_REGISTRY"]
                .iter()
                .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
        });
        let mut url = configured.unwrap_or_else(|| DEFAULT_REGISTRY.to_owned());
        if !url.ends_with('/') {
            url.push('/');
        }
        url
    }

    /// Installs the version (or finds it in the cache) and says where it is.
    pub async fn install(&self) -> Result<Installed, InstallError> {
        check_native(&self.version)?;
        let package = native_package()?;
        let dir = self.target_dir()?;
        let entry = dir.join(executable_name());
        if entry.is_file() {
            // The install renames a checked directory into place, so a present executable
            // is a finished install.
            return Ok(Installed {
                path: entry,
                version: self.version.clone(),
                downloaded: false,
            });
        }
        let parent = dir.parent().ok_or(InstallError::NoCacheDir)?;
        create_dir(parent).await?;
        let scratch = Scratch::create(parent, &self.version).await?;

        let registry = self.registry_url();
        let client = fetch::client()?;
        let dist = fetch::dist(&client, &registry, &package, &self.version).await?;
        tracing::info!(%package, version = %self.version, tarball = %dist.tarball, "downloading Claude Code");
        let tarball = scratch.path().join("package.tgz");
        fetch::download(&client, &dist, &tarball, self.max_download).await?;

        let staged = scratch.path().join("staged");
        create_dir(&staged).await?;
        let staged_entry = staged.join(executable_name());
        unpack::executable(&tarball, &staged_entry, &package).await?;
        unpack::check_version(&staged_entry, &self.version, VERSION_TIMEOUT).await?;

        if tokio::fs::metadata(&dir).await.is_ok() {
            // A broken install (no executable in it): moved aside, so the rename is atomic.
            let old = scratch.path().join("old");
            rename(&dir, &old).await?;
        }
        if let Err(err) = tokio::fs::rename(&staged, &dir).await {
            // Another install may have won the race; its result is as good as this one.
            if !entry.is_file() {
                return Err(InstallError::io(&dir, err));
            }
        }
        tracing::info!(path = %entry.display(), "installed Claude Code");
        Ok(Installed {
            path: entry,
            version: self.version.clone(),
            downloaded: true,
        })
    }
}

/// An installed Claude Code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Installed {
    /// Its executable.
    pub path: PathBuf,
    /// Its version.
    pub version: String,
    /// Whether this call downloaded it (false: it was in the cache).
    pub downloaded: bool,
}

/// Why an install failed. Nothing is left in the cache after any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The version is not one this installer can fetch.
    #[error("cannot install Claude Code `{version}`: {why}")]
    Version {
        /// The version asked for.
        version: String,
        /// Why not.
        why: String,
    },
    /// No native build is published for this operating system or processor.
    #[error("no native Claude Code build is published for {0}")]
    UnsupportedPlatform(String),
    /// No cache directory: none of `TWINWIRE_CACHE_DIR`, `XDG_CACHE_HOME`, `HOME` is set.
    #[error("no cache directory: set TWINWIRE_CACHE_DIR, XDG_CACHE_HOME or HOME")]
    NoCacheDir,
    /// The registry could not be reached, or answered with an error.
    #[error("the npm registry at {url}: {message}")]
    Registry {
        /// What was asked for.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The tarball's sha512 differs from the registry's `dist.integrity`.
    #[error("{package}: the downloaded tarball does not match the registry's integrity (expected sha512-{expected}, got sha512-{actual}); nothing was installed")]
    Integrity {
        /// The package.
        package: String,
        /// The digest the registry gives (base64).
        expected: String,
        /// The digest of what was downloaded (base64).
        actual: String,
    },
    /// The package is not what a native build looks like, or is larger than allowed.
    #[error("{package}: {problem}")]
    Package {
        /// The package.
        package: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The unpacked executable does not answer `--version` with the version asked for.
    #[error("the downloaded Claude Code does not work: {0}")]
    VersionCheck(String),
    /// Reading or writing a file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl InstallError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Whether the tarball was refused for not matching the registry's integrity.
    pub fn is_integrity(&self) -> bool {
        matches!(self, Self::Integrity { .. })
    }
}

/// The npm package with the native executable for this machine.
pub fn native_package() -> Result<String, InstallError> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        "windows" => "win32",
        other => return Err(InstallError::UnsupportedPlatform(other.to_owned())),
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => return Err(InstallError::UnsupportedPlatform(other.to_owned())),
    };
    let libc = if cfg!(target_env = "musl") || (os == "linux" && unpack::is_musl()) {
        "-musl"
    } else {
        ""
    };
    Ok(format!("@anthropic-ai/claude-code-{os}-{arch}{libc}"))
}

/// The executable's file name in the cache and in the package.
fn executable_name() -> &'static str {
    if cfg!(windows) {
        "claude.exe"
    } else {
        "claude"
    }
}

/// Refuses versions that are not `major.minor.patch` or that predate the native builds.
fn check_native(version: &str) -> Result<(), InstallError> {
    let refuse = |why: &str| InstallError::Version {
        version: version.to_owned(),
        why: why.to_owned(),
    };
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<Option<u64>> = core.split('.').map(|p| p.parse().ok()).collect();
    let parsed = match parts.as_slice() {
        [Some(major), Some(minor), Some(patch)] => (*major, *minor, *patch),
        _ => return Err(refuse("not a version like 2.1.330")),
    };
    if parsed < FIRST_NATIVE {
        return Err(refuse(
            "builds before 2.1.113 are JavaScript; install one with `npm install -g @anthropic-ai/claude-code@VERSION`",
        ));
    }
    Ok(())
}

async fn create_dir(dir: &Path) -> Result<(), InstallError> {
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(|err| InstallError::io(dir, err))
}

async fn rename(from: &Path, to: &Path) -> Result<(), InstallError> {
    tokio::fs::rename(from, to)
        .await
        .map_err(|err| InstallError::io(from, err))
}

/// The install's scratch directory beside the target, removed when dropped (success or not).
struct Scratch(PathBuf);

impl Scratch {
    async fn create(parent: &Path, version: &str) -> Result<Self, InstallError> {
        let dir = parent.join(format!(
            ".install-{version}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        create_dir(&dir).await?;
        Ok(Self(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Blocking, but only at the end of an install; a Drop cannot await.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_before_the_native_builds_are_refused_with_the_npm_way() {
        assert!(check_native("2.1.330").is_ok());
        assert!(check_native("2.1.113").is_ok());
        let old = check_native("2.0.77").unwrap_err().to_string();
        assert!(old.contains("npm install -g"), "{old}");
        let bad = check_native("latest").unwrap_err().to_string();
        assert!(bad.contains("not a version"), "{bad}");
    }

    #[test]
    fn the_registry_url_ends_with_a_slash() {
        let installer = Installer::new().registry("http://127.0.0.1:9/npm");
        assert_eq!(installer.registry_url(), "http://127.0.0.1:9/npm/");
    }
}
