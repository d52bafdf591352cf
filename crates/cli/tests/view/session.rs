//! `view --session`: a session the real CLI wrote offline, read as a conversation in Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::browser::Tab;
use crate::common::twinwire;
use crate::fixtures::{self, succeed, TITLE};

/// `twinwire view --session ID --config-dir DIR -o DIR/NAME.html`; the page's path.
fn session_page(config_dir: &Path, id: &str, dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(format!("{name}.html"));
    succeed(
        Command::new(twinwire())
            .args(["view", "--session", id, "--config-dir"])
            .arg(config_dir)
            .arg("-o")
            .arg(&out),
    );
    out
}

/// The dollar amount in a text (`$0.0048` → 0.0048).
fn dollars(text: &str) -> f64 {
    let start = text.find('$').unwrap_or_else(|| panic!("no $ in {text}")) + 1;
    let number: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_session_reads_like_a_conversation() {
    let session = tokio::task::spawn_blocking(fixtures::session)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page_path = session_page(&session.config_dir, &session.id, dir.path(), "session");
    let html = std::fs::read_to_string(&page_path).unwrap();
    // Titled by its custom title before any script runs, not by its id.
    assert!(
        html.contains(&format!("<title>{TITLE} · twinwire view</title>")),
        "{}",
        &html[..1000]
    );
    let bookkeeping = fixtures::rows_of(&html)
        .iter()
        .filter(|r| r["role"] == "bookkeeping")
        .count();
    let tab = Tab::open(&page_path, dir.path(), 1000).await;
    assert_eq!(
        tab.text("document.title").await,
        format!("{TITLE} · twinwire view")
    );
    assert_eq!(
        tab.text("document.getElementById('title').textContent")
            .await,
        TITLE
    );
    let subtitle = tab
        .text("document.getElementById('subtitle').textContent")
        .await;
    assert_eq!(subtitle, "Please write the NOTES file");
    let about = tab
        .text("document.getElementById('about').textContent")
        .await;
    assert!(
        about.contains(&session.id) && about.contains("Claude Code 2.1.330"),
        "{about}"
    );
    let shot = std::env::var_os("TWINWIRE_VIEW_SESSION_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::target_dir().join("view-session.png"));
    tab.screenshot(&shot).await;

    // The prompts as written, a slash command as typed; the answer's Markdown rendered.
    let prompts = tab
        .text("Array.from(document.querySelectorAll('.row.prompt .md'), p => p.textContent.trim()).join('|')")
        .await;
    assert_eq!(
        prompts,
        format!("Please write the NOTES file|/rename {TITLE}")
    );
    assert_eq!(
        tab.text("document.querySelector('.row.answer strong').textContent")
            .await,
        "done"
    );
    assert_eq!(tab.count(".row.answer table").await, 1);

    // Tool calls shown by kind.
    let calls = tab
        .text("Array.from(document.querySelectorAll('.row.tool .tool-view'), t => t.innerText.replace(/\\s+/g, ' ').trim()).join('\\n')")
        .await;
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 5, "{calls:?}");
    assert!(
        calls[0].starts_with("▸ Write ") && calls[0].contains("+# Notes + +This is a draft."),
        "{}",
        calls[0]
    );
    assert!(
        calls[1].starts_with("▸ Edit ") && calls[1].ends_with("notes.md -a draft +the final"),
        "{}",
        calls[1]
    );
    assert_eq!(calls[2], "▸ Bash $ rm -rf old-notes Remove the old notes");
    assert_eq!(calls[3], "▸ Grep “final” in .");
    assert_eq!(
        calls[4],
        "▸ WebFetch https://example.com/style The style guide"
    );
    assert_eq!(tab.count(".diff .del").await, 1);
    assert_eq!(tab.count(".diff .add").await, 4);

    // Results with the permission decision the session recorded.
    let decisions = tab
        .text("Array.from(document.querySelectorAll('.row.result .decision'), d => d.textContent).join('|')")
        .await;
    assert_eq!(
        decisions,
        "allowed (user_temporary, once)|allowed (user_temporary, once)|denied (user_reject)|denied (user_reject)"
    );
    let denied = tab
        .text("document.querySelector('.row.result.deny').innerText")
        .await;
    assert!(denied.contains("not allowed"), "{denied}");

    // Costs and times from the entries: the session's own count on top, each turn priced.
    let totals = tab
        .text("document.getElementById('totals').textContent")
        .await;
    assert!(totals.contains("(the session's own count"), "{totals}");
    let turns = tab
        .text("Array.from(document.querySelectorAll('.turn'), t => t.textContent).join('\\n')")
        .await;
    let first_turn = turns.lines().next().unwrap();
    assert!(first_turn.starts_with("Turn 1 · ≈ $"), "{turns}");
    assert!(dollars(&totals) > 0.0, "{totals}");
    assert_eq!(dollars(first_turn), dollars(&totals), "{turns}\n{totals}");
    let tokens = |text: &str| {
        let at = text.find(" out").unwrap();
        let start = text[..at].rfind(" · ").unwrap() + 3;
        text[start..at].to_owned()
    };
    assert_eq!(tokens(first_turn), tokens(&totals).replace(" tokens", ""));
    assert!(first_turn.ends_with(" s"), "{first_turn}");
    assert!(tab.count(".row .when").await > 10);

    // The bookkeeping is folded: none shown, a fold opens in place, the toggle shows all.
    assert_eq!(tab.count(".row.bookkeeping").await, 0);
    let fold = tab
        .text("document.querySelector('.fold').textContent")
        .await;
    assert!(
        fold.starts_with("⋯ 2 bookkeeping entries (queue-operation)"),
        "{fold}"
    );
    tab.run("document.querySelector('.fold').click()").await;
    assert_eq!(tab.count(".row.bookkeeping").await, 2);
    tab.run("document.querySelector('input[data-family=bookkeeping]').click()")
        .await;
    tab.show_all().await;
    assert_eq!(tab.count(".row.bookkeeping").await, bookkeeping);
    assert_eq!(tab.count(".fold").await, 0);
    tab.close().await;
}

/// A session without the CLI's own count (cut short, or from an older CLI) is priced at list
/// prices, and says so: the same sum as the CLI's own count of that session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_its_own_cost_a_session_is_priced_at_list_prices() {
    let session = tokio::task::spawn_blocking(fixtures::session)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("config");
    assert!(Command::new("cp")
        .arg("-a")
        .arg(&session.config_dir)
        .arg(&copy)
        .status()
        .unwrap()
        .success());
    let transcript = fixtures::transcripts(&copy)
        .into_iter()
        .find(|path| path.file_stem().is_some_and(|stem| *stem == *session.id))
        .unwrap();
    let text = std::fs::read_to_string(&transcript).unwrap();
    let own: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"type\":\"cost-state\""))
        .collect();
    assert!(!own.is_empty(), "the CLI wrote no cost-state entry");
    let last: serde_json::Value = serde_json::from_str(own.last().unwrap()).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"cost-state\""))
        .collect();
    std::fs::write(&transcript, kept.join("\n") + "\n").unwrap();

    let page_path = session_page(&copy, &session.id, dir.path(), "estimated");
    let tab = Tab::open(&page_path, dir.path(), 900).await;
    let totals = tab
        .text("document.getElementById('totals').textContent")
        .await;
    assert!(
        totals.contains("(estimated from Claude Code 2.1.330's list prices"),
        "{totals}"
    );
    let own_usd = last["totalCostUSD"].as_f64().unwrap();
    assert!(
        (dollars(&totals) - own_usd).abs() < 1e-4,
        "{totals} vs the CLI's {own_usd}"
    );
    let tokens = format!(
        "{} in / ",
        last["modelUsage"]["claude-opus-5-5"]["inputTokens"]
    );
    assert!(totals.contains(&tokens), "{totals} vs {last}");
    tab.close().await;
}
