//! `twinwire view`: a session as one self-contained HTML page, from a tap recording, a
//! `twinwire run --output jsonl` capture, a plain stream-json stdout capture, or a saved session
//! (`--session ID`). The input is read line by line and each line's row written to the page at
//! once: memory stays the same whatever the input's size.

mod argv;
mod entries;
mod frames;
mod lines;
mod markdown;
mod model;
mod page;
mod prices;
mod rows;
mod text;
mod tools;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use twinwire::sessions::{ListOptions, SavedSessions, SessionInfo};
use twinwire_protocol::framing::DEFAULT_MAX_LINE_LENGTH;

use lines::Lines;
use model::Reader;
use page::{PageWriter, Summary};

/// Options of `twinwire view`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["file", "session"])))]
pub struct ViewArgs {
    /// The recording or capture to show (`-` for stdin).
    #[arg(conflicts_with = "session")]
    pub file: Option<PathBuf>,
    /// A saved session instead of a file: its id, or its title (as `run --resume` takes it; the
    /// newest session of that title).
    #[arg(long, value_name = "ID_OR_TITLE")]
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
    /// The longest line shown; a longer one gets a row saying so and reading goes on after it
    /// (a line without a newline for 16 times this ends the input).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_LENGTH)]
    pub max_line_length: usize,
}

/// What the page is made from.
struct Input {
    /// The page's title before the rows are read.
    title: String,
    reader: Box<dyn Read>,
    /// Where the page goes unless `--output` says.
    default_out: PathBuf,
    /// The input file, which the page must not overwrite.
    path: Option<PathBuf>,
    /// A saved session's summary from the store.
    info: Option<SessionInfo>,
}

/// Writes the page; prints its path.
pub fn run(args: &ViewArgs, out: &mut impl Write) -> anyhow::Result<bool> {
    let input = open_input(args)?;
    let target = args.output.clone().unwrap_or(input.default_out);
    if let Some(path) = &input.path {
        if same_file(path, &target) {
            bail!(
                "the page would overwrite its input {}: name another with --output",
                path.display()
            );
        }
    }
    // The page holds the whole conversation: readable by its owner only.
    let file = crate::transcript::private_file(&target)
        .with_context(|| format!("writing {}", target.display()))?;
    let mut page = PageWriter::start(std::io::BufWriter::new(file), &input.title)?;
    let mut reader = Reader::new();
    let mut lines = Lines::new(input.reader, args.max_line_length.max(1));
    let mut failure = None;
    loop {
        match lines.next_line() {
            Ok(Some((number, line))) => reader.read(number, line, &mut |row| page.row(row))?,
            Ok(None) => break,
            Err(err) => {
                // What was read is kept: the page ends with a row saying where reading stopped.
                let why = format!("reading stopped: {err}");
                reader.stopped(&why, &mut |row| page.row(row))?;
                failure = Some(why);
                break;
            }
        }
    }
    let totals = reader.totals();
    let is_session = totals.entries > totals.frames;
    let header = is_session.then(|| reader.session_header(input.info.as_ref()));
    let summary = Summary {
        title: header
            .as_ref()
            .map_or_else(|| input.title.clone(), |h| h.title.clone()),
        layout: if is_session { "conversation" } else { "frames" },
        totals,
        session: header,
    };
    let mut file = page.finish(&summary)?;
    file.flush()?;
    writeln!(out, "{}", target.display())?;
    if let Some(why) = failure {
        bail!("{why}; the page shows the lines before it");
    }
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

fn open_input(args: &ViewArgs) -> anyhow::Result<Input> {
    match (&args.file, &args.session) {
        (_, Some(wanted)) => {
            let (path, file, info) = find_session(wanted, &session_stores(args))?;
            let id = info
                .as_ref()
                .map_or(wanted.as_str(), |info| info.session_id.as_str());
            let title = info
                .as_ref()
                .map(crate::sessions::label)
                .filter(|t| !t.is_empty())
                .map_or_else(|| format!("session {id}"), str::to_owned);
            Ok(Input {
                title,
                reader: Box::new(file),
                default_out: PathBuf::from(format!("{id}.html")),
                path: Some(path),
                info,
            })
        }
        (Some(path), None) if path.as_os_str() == "-" => Ok(Input {
            title: "stdin".to_owned(),
            reader: Box::new(std::io::stdin()),
            default_out: PathBuf::from("view.html"),
            path: None,
            info: None,
        }),
        (Some(path), None) => {
            let file =
                std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            Ok(Input {
                title: name,
                reader: Box::new(file),
                default_out: path.with_extension("html"),
                path: Some(path.clone()),
                info: None,
            })
        }
        (None, None) => bail!("give a recording or capture file (`-` for stdin), or --session ID"),
    }
}

/// The config directories `--session` looks in, in order: `--config-dir` when given, else the
/// CLI's own (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
fn session_stores(args: &ViewArgs) -> Vec<SavedSessions> {
    // The user's config directory, then the one of `--offline` sessions.
    crate::offline::session_stores(args.config_dir.as_deref())
        .places()
        .iter()
        .map(|place| place.store.clone())
        .collect()
}

/// A saved session's transcript (its path, and the file opened beneath the config directory,
/// never through a link out of it) and summary: from the first store that has it, by its id,
/// else by its title as `run --resume` takes one (the newest session of that title).
fn find_session(
    wanted: &str,
    stores: &[SavedSessions],
) -> anyhow::Result<(PathBuf, std::fs::File, Option<SessionInfo>)> {
    let by_title = || {
        stores.iter().find_map(|store| {
            store
                .list(&ListOptions::default())
                .into_iter()
                .filter(|info| info.custom_title.as_deref() == Some(wanted))
                .max_by_key(|info| info.last_modified)
                .map(|info| (store, info.session_id))
        })
    };
    let found = stores
        .iter()
        .find(|store| store.transcript_path(wanted, None).is_some())
        .map(|store| (store, wanted.to_owned()))
        .or_else(by_title);
    if let Some((store, id)) = found {
        if let Some(path) = store.transcript_path(&id, None) {
            let file = store
                .open_transcript(&id, None)
                .with_context(|| format!("opening session {id}"))?;
            return Ok((path, file, store.info(&id, None)));
        }
    }
    let id = wanted;
    let searched: Vec<String> = stores
        .iter()
        .map(|s| s.projects_dir().display().to_string())
        .collect();
    bail!(
        "session {id} not found under {} (by id or title; `twinwire sessions list --all` lists \
         the sessions there)",
        searched.join(", ")
    )
}

/// Whether `output` names the same file as `input` (it would be emptied before it is read).
fn same_file(input: &Path, output: &Path) -> bool {
    match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
