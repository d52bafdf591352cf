//! `ccwire view`: a session as one self-contained HTML page, from a tap recording, a
//! `ccwire run --output jsonl` capture, a plain stream-json stdout capture, or a saved session
//! (`--session ID`).

mod markdown;
mod page;
mod rows;

use std::io::Read;
use std::path::PathBuf;

use anyhow::{bail, Context};
use ccwire_protocol::framing::{LineReader, DEFAULT_MAX_LINE_LENGTH};

/// Options of `ccwire view`.
#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// The recording or capture to show (`-` for stdin).
    #[arg(required_unless_present = "session", conflicts_with = "session")]
    pub file: Option<PathBuf>,
    /// A saved session instead of a file.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The CLI's config directory for --session (default: $CLAUDE_CONFIG_DIR, else ~/.claude,
    /// and the one of `run --offline`).
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Where to write the page (default: the input's name with `.html`, or `<ID>.html`).
    #[arg(short, long, value_name = "OUT.html")]
    pub output: Option<PathBuf>,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
}

/// Writes the page; prints its path.
pub fn run(args: &ViewArgs, out: &mut impl std::io::Write) -> anyhow::Result<bool> {
    let (title, lines, default_out): (String, Box<dyn Iterator<Item = String>>, PathBuf) =
        match (&args.file, &args.session) {
            (_, Some(id)) => {
                let store = crate::offline::session_stores(args.config_dir.as_deref());
                let path = store
                    .transcript_path(id, None)
                    .with_context(|| format!("session {id} not found"))?;
                let file = std::fs::File::open(&path)?;
                (
                    format!("session {id}"),
                    lines_of(file),
                    PathBuf::from(format!("{id}.html")),
                )
            }
            (Some(path), None) if path.as_os_str() == "-" => (
                "stdin".to_owned(),
                lines_of(std::io::stdin()),
                PathBuf::from("view.html"),
            ),
            (Some(path), None) => {
                let file = std::fs::File::open(path)
                    .with_context(|| format!("opening {}", path.display()))?;
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |name| name.to_string_lossy().into_owned(),
                );
                (name, lines_of(file), path.with_extension("html"))
            }
            (None, None) => bail!("give a file or --session ID"),
        };
    let rows = rows::read(lines);

    let target = args.output.clone().unwrap_or(default_out);
    // The page holds the whole conversation: readable by its owner only.
    let file = crate::transcript::private_file(&target)
        .with_context(|| format!("writing {}", target.display()))?;
    let mut file = std::io::BufWriter::new(file);
    page::write(&mut file, &title, &rows)?;
    std::io::Write::flush(&mut file)?;
    writeln!(out, "{}", target.display())?;
    if args.open {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        let _ = std::process::Command::new(opener).arg(&target).spawn();
    }
    Ok(true)
}

/// The lines of an input, each at most the line limit: an over-long line is shown as one that
/// could not be read, and an endless one ends the input.
fn lines_of(input: impl Read + 'static) -> Box<dyn Iterator<Item = String>> {
    let mut reader = LineReader::new(input, DEFAULT_MAX_LINE_LENGTH).ending_at_oversized();
    Box::new(std::iter::from_fn(move || match reader.next_line() {
        Ok(Some(Ok((_, text)))) => Some(text),
        Ok(Some(Err(err))) => Some(format!("(not shown: {err})")),
        Ok(None) => None,
        Err(err) => Some(format!("(reading stopped: {err})")),
    }))
}
