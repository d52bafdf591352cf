//! A local web server for the WebFetch cases: the case's pages by path, 404 for the rest.
//! HTTP/1.1, one request per connection.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A running server.
pub struct WebServer {
    port: u16,
    task: JoinHandle<()>,
}

impl WebServer {
    /// Serves `pages` (path, content type, body) on a free port of 127.0.0.1.
    pub async fn start(pages: Vec<(String, String, Vec<u8>)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let pages = pages.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buffer = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                        match socket.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head);
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let found = pages.iter().find(|(p, _, _)| *p == path);
                    let (status, kind, body) = match found {
                        Some((_, kind, body)) if kind.starts_with("redirect:") => {
                            let to = &kind["redirect:".len()..];
                            let reply = format!(
                                "HTTP/1.1 301 Moved Permanently\r\nLocation: {to}\r\n\
                                 Content-Length: 0\r\nConnection: close\r\n\r\n"
                            );
                            let _ = socket.write_all(reply.as_bytes()).await;
                            let _ = body;
                            return;
                        }
                        Some((_, kind, body)) => ("200 OK", kind.clone(), body.clone()),
                        None => ("404 Not Found", "text/plain".to_owned(), b"no such page".to_vec()),
                    };
                    let reply = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                         Connection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = socket.write_all(reply.as_bytes()).await;
                    let _ = socket.write_all(&body).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Self { port, task }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops serving.
    pub fn stop(self) {
        self.task.abort();
    }
}
