//! The registry's side: a package version's `dist`, and its tarball downloaded and hashed.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use sha2::{Digest as _, Sha512};
use tokio::io::AsyncWriteExt as _;

use super::InstallError;

/// The largest metadata document read (one version's is about 2 KB).
const MAX_METADATA: usize = 4 << 20;

/// How long connecting may take; the download itself has no total limit (175 MB on a slow
/// line), but each read must make progress within [`READ_TIMEOUT`].
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// Where a version's tarball is and what it must hash to.
#[derive(Debug)]
pub(super) struct Dist {
    pub(super) package: String,
    pub(super) tarball: String,
    /// The base64 sha512 from `dist.integrity`.
    pub(super) sha512: String,
}

/// An HTTP client that honours the proxy variables and trusts the system's certificates.
pub(super) fn client() -> Result<reqwest::Client, InstallError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .user_agent(concat!(
            env!("CARGO_PKG_NAME"),
            "/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .map_err(|err| InstallError::Registry {
            url: String::new(),
            message: format!("no HTTP client: {err}"),
        })
}

/// Reads `package@version`'s `dist` from the registry at `registry` (ending in `/`).
pub(super) async fn dist(
    client: &reqwest::Client,
    registry: &str,
    package: &str,
    version: &str,
) -> Result<Dist, InstallError> {
    // Scoped names are one path segment, with the slash escaped, as npm asks for them.
    let url = format!("{registry}{}/{version}", package.replace('/', "%2f"));
    let failed = |message: String| InstallError::Registry {
        url: url.clone(),
        message,
    };
    let mut response = client
        .get(&url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|err| failed(describe(&err)))?;
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Err(failed(format!("{package}@{version} is not published")));
    }
    if !response.status().is_success() {
        return Err(failed(format!("answered {}", response.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| failed(describe(&err)))?
    {
        if body.len() + chunk.len() > MAX_METADATA {
            return Err(failed(format!("metadata larger than {MAX_METADATA} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&body).map_err(|err| failed(format!("not JSON: {err}")))?;
    let field = |name: &str| doc["dist"][name].as_str().map(str::to_owned);
    let tarball = field("tarball").ok_or_else(|| failed("no dist.tarball".to_owned()))?;
    let integrity = field("integrity").ok_or_else(|| failed("no dist.integrity".to_owned()))?;
    // `integrity` is Subresource Integrity: space-separated `algo-base64` entries.
    let sha512 = integrity
        .split_whitespace()
        .find_map(|entry| entry.strip_prefix("sha512-"))
        .ok_or_else(|| failed(format!("dist.integrity has no sha512: {integrity}")))?
        .to_owned();
    Ok(Dist {
        package: package.to_owned(),
        tarball,
        sha512,
    })
}

/// Downloads the tarball to `to` (at most `limit` bytes), hashing it on the way, and refuses
/// it unless it matches the registry's sha512.
pub(super) async fn download(
    client: &reqwest::Client,
    dist: &Dist,
    to: &Path,
    limit: u64,
) -> Result<(), InstallError> {
    let failed = |message: String| InstallError::Registry {
        url: dist.tarball.clone(),
        message,
    };
    let mut response = client
        .get(&dist.tarball)
        .send()
        .await
        .map_err(|err| failed(describe(&err)))?;
    if !response.status().is_success() {
        return Err(failed(format!("answered {}", response.status())));
    }
    let too_large = || InstallError::Package {
        package: dist.package.clone(),
        problem: format!("the tarball is larger than {limit} bytes"),
    };
    if response.content_length().is_some_and(|len| len > limit) {
        return Err(too_large());
    }
    let mut file = tokio::fs::File::create(to)
        .await
        .map_err(|err| InstallError::io(to, err))?;
    let mut hasher = Sha512::new();
    let mut written: u64 = 0;
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| failed(describe(&err)))?
    {
        written += chunk.len() as u64;
        if written > limit {
            return Err(too_large());
        }
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|err| InstallError::io(to, err))?;
    }
    file.flush()
        .await
        .map_err(|err| InstallError::io(to, err))?;
    let actual = base64::engine::general_purpose::STANDARD.encode(hasher.finalize());
    if actual != dist.sha512 {
        return Err(InstallError::Integrity {
            package: dist.package.clone(),
            expected: dist.sha512.clone(),
            actual,
        });
    }
    Ok(())
}

/// An HTTP error with its causes (reqwest's own text stops at "error sending request").
fn describe(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::net::TcpListener;

    use super::*;

    /// Serves `body` for every request (at most `requests`), as a registry's tarball URL.
    fn serve(body: &'static [u8], requests: usize) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/p.tgz", listener.local_addr().expect("addr"));
        std::thread::spawn(move || {
            for stream in listener.incoming().take(requests).flatten() {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(body);
            }
        });
        url
    }

    const BODY: &[u8] = b"a tarball's bytes, 36 of them here..";

    fn dist(url: String) -> Dist {
        Dist {
            package: "@scope/pkg".into(),
            tarball: url,
            sha512: base64::engine::general_purpose::STANDARD.encode(Sha512::digest(BODY)),
        }
    }

    #[tokio::test]
    async fn a_matching_tarball_is_kept_and_a_larger_one_than_the_limit_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let client = client().expect("client");
        let to = dir.path().join("p.tgz");
        download(&client, &dist(serve(BODY, 1)), &to, 1 << 20)
            .await
            .expect("download");
        assert_eq!(std::fs::read(&to).expect("read"), BODY);

        let err = download(&client, &dist(serve(BODY, 1)), &to, 10)
            .await
            .expect_err("over the limit");
        assert!(err.to_string().contains("larger than 10 bytes"), "{err}");
    }

    #[tokio::test]
    async fn a_tarball_with_another_sha512_is_an_integrity_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut wrong = dist(serve(BODY, 1));
        wrong.sha512 = base64::engine::general_purpose::STANDARD.encode(Sha512::digest(b"other"));
        let err = download(
            &client().expect("client"),
            &wrong,
            &dir.path().join("p"),
            1 << 20,
        )
        .await
        .expect_err("mismatch");
        assert!(err.is_integrity(), "{err}");
    }
}
