//! Headless Chromium over the DevTools protocol (`chromiumoxide`): a page loaded from a file,
//! scripts evaluated in it, screenshots, and what it logged to the console.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled;
use chromiumoxide::page::ScreenshotParams;
use chromiumoxide::Page;
use futures::StreamExt;

/// Chromium: `$TWINWIRE_CHROMIUM`, else `chromium` on `PATH` (`cargo xtask test` installs it).
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("TWINWIRE_CHROMIUM").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(output) = Command::new("which").arg(name).output() {
            if output.status.success() {
                return PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
            }
        }
    }
    panic!("no Chromium: `cargo xtask test` installs Debian's `chromium`, or set TWINWIRE_CHROMIUM")
}

/// A browser with one page open on a file.
pub struct Tab {
    browser: Browser,
    events: tokio::task::JoinHandle<()>,
    page: Page,
    console: chromiumoxide::listeners::EventStream<EventConsoleApiCalled>,
}

impl Tab {
    /// Starts Chromium (its profile under `dir`) and opens `file`.
    pub async fn open(file: &Path, dir: &Path, height: u32) -> Self {
        let config = BrowserConfig::builder()
            .chrome_executable(chromium())
            .no_sandbox()
            .user_data_dir(dir.join("profile"))
            .window_size(1280, height)
            .viewport(chromiumoxide::handler::viewport::Viewport {
                width: 1280,
                height,
                ..Default::default()
            })
            .arg("--disable-gpu")
            .arg(format!("--window-size=1280,{height}"))
            .build()
            .unwrap();
        let (browser, mut handler) = Browser::launch(config).await.unwrap();
        let events = tokio::spawn(async move { while handler.next().await.is_some() {} });
        let page = browser.new_page("about:blank").await.unwrap();
        let console = page
            .event_listener::<EventConsoleApiCalled>()
            .await
            .unwrap();
        page.goto(format!("file://{}", file.display()))
            .await
            .unwrap();
        page.wait_for_navigation().await.unwrap();
        Self {
            browser,
            events,
            page,
            console,
        }
    }

    /// The string a script evaluates to.
    pub async fn text(&self, script: &str) -> String {
        self.page
            .evaluate(script)
            .await
            .unwrap_or_else(|err| panic!("{script}: {err}"))
            .into_value::<String>()
            .unwrap_or_else(|err| panic!("{script}: {err}"))
    }

    /// How many elements match a CSS selector.
    pub async fn count(&self, selector: &str) -> usize {
        let script = format!(
            "String(document.querySelectorAll({}).length)",
            serde_json::Value::from(selector)
        );
        self.text(&script).await.parse().unwrap()
    }

    /// Runs a script for its effects.
    pub async fn run(&self, script: &str) {
        self.text(&format!("(() => {{ {script}; return ''; }})()"))
            .await;
    }

    /// Sets the search box and waits until the list shows what it found (the page searches
    /// after a pause in typing).
    pub async fn search(&self, text: &str) {
        let text = serde_json::Value::from(text);
        self.run(&format!(
            "const s = document.getElementById('search'); s.value = {text}; s.dispatchEvent(new Event('input'))"
        ))
        .await;
        let applied = format!("String(document.getElementById('list').dataset.search === {text})");
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while self.text(&applied).await != "true" {
            assert!(
                std::time::Instant::now() < deadline,
                "the search for {text} never applied"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Clicks "Show more" until every selected row is drawn.
    pub async fn show_all(&self) {
        self.run("const m = document.getElementById('more'); while (!m.hidden) m.click()")
            .await;
    }

    /// Saves a screenshot of the viewport as PNG.
    pub async fn screenshot(&self, target: &Path) {
        let shot = self
            .page
            .screenshot(
                ScreenshotParams::builder()
                    .format(CaptureScreenshotFormat::Png)
                    .full_page(false)
                    .build(),
            )
            .await
            .unwrap();
        std::fs::write(target, shot).unwrap();
    }

    /// Closes the browser, failing if the page logged anything (an error in its script
    /// would show there).
    pub async fn close(mut self) {
        let logged = tokio::time::timeout(Duration::from_millis(300), self.console.next()).await;
        assert!(logged.is_err(), "the page logged: {logged:?}");
        self.browser.close().await.unwrap();
        let _ = self.browser.wait().await;
        self.events.abort();
    }
}
