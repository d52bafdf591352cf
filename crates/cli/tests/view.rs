//! `ccwire view` in a real browser: the page for a recording of the real CLI (a permission
//! asked and allowed) loaded in headless Chromium over the DevTools protocol
//! (`chromiumoxide`): the DOM holds the prompt, the tool call, the permission round trip and
//! the cost; the filter and the search work; nothing is logged to the console; a screenshot is
//! kept (`target/view.png`; `CCWIRE_VIEW_SCREENSHOT` names another place).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled;
use chromiumoxide::page::ScreenshotParams;
use futures::StreamExt;

mod common;
use common::ccwire;

const RECORDING: &str =
    "claude-2.1.330/permissions.bash_allowed_by_can_use_tool_creates_the_file.jsonl";

/// Chromium: `$CCWIRE_CHROMIUM`, else `chromium` on `PATH` (`cargo xtask test` installs it).
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CCWIRE_CHROMIUM").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(output) = Command::new("which").arg(name).output() {
            if output.status.success() {
                return PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
            }
        }
    }
    panic!("no Chromium: `cargo xtask test` installs Debian's `chromium`, or set CCWIRE_CHROMIUM")
}

fn page_for(recording: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("view.html");
    let status = Command::new(ccwire())
        .arg("view")
        .arg(recording)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_of_a_real_session_in_chromium() {
    let fixtures =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    let dir = tempfile::tempdir().unwrap();
    let page_path = page_for(&fixtures.join(RECORDING), dir.path());
    let html = std::fs::read_to_string(&page_path).unwrap();
    assert!(
        !html.contains("http://") || !html.contains("<script src"),
        "no external script"
    );

    let config = BrowserConfig::builder()
        .chrome_executable(chromium())
        .no_sandbox()
        .user_data_dir(dir.path().join("profile"))
        .window_size(1280, 900)
        .viewport(chromiumoxide::handler::viewport::Viewport {
            width: 1280,
            height: 900,
            ..Default::default()
        })
        .arg("--disable-gpu")
        .arg("--window-size=1280,900")
        .build()
        .unwrap();
    let (mut browser, mut handler) = Browser::launch(config).await.unwrap();
    let events = tokio::spawn(async move { while handler.next().await.is_some() {} });
    let page = browser.new_page("about:blank").await.unwrap();
    let mut console = page
        .event_listener::<EventConsoleApiCalled>()
        .await
        .unwrap();
    let url = format!("file://{}", page_path.display());
    page.goto(url).await.unwrap();
    page.wait_for_navigation().await.unwrap();

    let text = |script: &str| {
        let page = page.clone();
        let script = script.to_owned();
        async move {
            page.evaluate(script)
                .await
                .unwrap()
                .into_value::<String>()
                .unwrap()
        }
    };
    let body = text("document.body.innerText").await;
    for expected in [
        "please run the command",
        "can_use_tool Bash",
        "can_use_tool answered",
        "allow",
        "$",
    ] {
        assert!(
            body.contains(expected),
            "{expected:?} not on the page:\n{body}"
        );
    }
    // The permission round trip is marked and timed; the cost is totalled.
    let allowed = text("String(document.querySelectorAll('.row.allow').length)").await;
    assert_eq!(allowed, "1", "{body}");
    let rtt = text("document.querySelector('.row.allow .rtt').textContent").await;
    assert!(rtt.ends_with(" ms"), "{rtt}");
    let totals = text("document.getElementById('totals').textContent").await;
    assert!(
        totals.contains("1 allowed") && totals.contains("· 1 turn ·"),
        "{totals}"
    );

    // The filter: without control frames no permission row is left; the search narrows.
    let all = text("String(document.querySelectorAll('.row').length)").await;
    text("(() => { const b = document.querySelector('input[data-family=control_request]'); b.click(); return ''; })()").await;
    text("(() => { const b = document.querySelector('input[data-family=control_response]'); b.click(); return ''; })()").await;
    assert_eq!(
        text("String(document.querySelectorAll('.row.control').length)").await,
        "0"
    );
    let fewer = text("String(document.querySelectorAll('.row').length)").await;
    assert!(fewer.parse::<usize>().unwrap() < all.parse::<usize>().unwrap());
    text("(() => { const s = document.getElementById('search'); s.value = 'touch'; s.dispatchEvent(new Event('input')); return ''; })()").await;
    let found = text("String(document.querySelectorAll('.row').length)").await;
    assert!(
        found.parse::<usize>().unwrap() >= 1 && found < fewer,
        "{found} of {fewer}"
    );
    text("(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); document.querySelectorAll('#filters input[type=checkbox]').forEach(b => { if (!b.checked) b.click(); }); return ''; })()").await;

    let shot = page
        .screenshot(
            ScreenshotParams::builder()
                .format(CaptureScreenshotFormat::Png)
                .full_page(false)
                .build(),
        )
        .await
        .unwrap();
    let target = std::env::var_os("CCWIRE_VIEW_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/view.png"));
    std::fs::write(&target, shot).unwrap();

    // Nothing on the console (an error in the page's script would show there).
    let logged = tokio::time::timeout(Duration::from_millis(300), console.next()).await;
    assert!(logged.is_err(), "the page logged: {logged:?}");
    browser.close().await.unwrap();
    let _ = browser.wait().await;
    events.abort();
}

/// What the model wrote cannot run in the page: a script in its text, an event handler, a
/// `javascript:` link.
#[test]
fn model_text_cannot_run_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.jsonl");
    let evil = r#"<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'"> </script><script>alert(2)</script>

[x](javascript:alert(1))"#;
    let frame = serde_json::json!({"type": "assistant", "message": {"id": "m", "role": "assistant",
        "content": [{"type": "text", "text": evil}]}, "session_id": "s", "parent_tool_use_id": null});
    std::fs::write(&capture, format!("{frame}\n")).unwrap();
    let html = std::fs::read_to_string(page_for(&capture, dir.path())).unwrap();
    // Exactly the page's own two script elements; the model's markup is data.
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert!(!html.contains("<img"), "{html}");
    // The link's target was replaced; the text itself stays visible as data.
    assert!(html.contains(r##"href=\"#\""##), "{html}");
    assert!(!html.contains(r##"href=\"javascript"##), "{html}");
}
