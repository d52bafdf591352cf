//! A local web server for the WebFetch cases: the case's pages by path, 404 for the rest,
//! over HTTPS (Claude Code's WebFetch upgrades `http` to `https`) with a certificate made at
//! run time for 127.0.0.1, which both CLIs trust through `NODE_EXTRA_CA_CERTS`. HTTP/1.1, one
//! request per connection.

use std::path::Path;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A running server.
pub struct WebServer {
    port: u16,
    task: JoinHandle<()>,
}

/// A page: path, content type (or `redirect:<url>`), body.
pub type PageSpec = (String, String, Vec<u8>);

impl WebServer {
    /// Serves `pages` on a free port of 127.0.0.1; the certificate's PEM is written to
    /// `certificate`.
    pub async fn start(pages: Vec<PageSpec>, certificate: &Path) -> Self {
        let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()])
            .expect("a certificate");
        std::fs::write(certificate, key.cert.pem()).expect("the certificate is written");
        let chain = vec![key.cert.der().clone()];
        let private = rustls::pki_types::PrivateKeyDer::try_from(key.signing_key.serialize_der())
            .expect("a private key");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .expect("a server configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let pages = pages.clone();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let accepted = tokio::time::timeout(
                        std::time::Duration::from_secs(10),
                        acceptor.accept(socket),
                    )
                    .await;
                    if let Ok(Ok(stream)) = accepted {
                        serve(stream, &pages).await;
                    }
                });
            }
        });
        Self { port, task }
    }

    /// `http://127.0.0.1:PORT` (the clients upgrade it).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops serving.
    pub fn stop(self) {
        self.task.abort();
    }
}

async fn serve<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(
    mut stream: S,
    pages: &[PageSpec],
) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let reply = match pages.iter().find(|(p, _, _)| *p == path) {
        Some((_, kind, _)) if kind.starts_with("redirect:") => format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n",
            &kind["redirect:".len()..]
        )
        .into_bytes(),
        Some((_, kind, body)) => response("200 OK", kind, body),
        None => response("404 Not Found", "text/plain", b"no such page"),
    };
    let _ = stream.write_all(&reply).await;
    let _ = stream.shutdown().await;
}

fn response(status: &str, kind: &str, body: &[u8]) -> Vec<u8> {
    let mut reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: \
         close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    reply.extend_from_slice(body);
    reply
}
