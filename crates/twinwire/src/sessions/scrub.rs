//! Secrets out of saved sessions: each transcript of a session (its subagents' too, and the
//! small JSON files beside them) read line by line through a [`Redactor`] and, when anything
//! changed, written anew beside the file and renamed over it, so a reader sees the old file or
//! the new one, never a mix. Lines the CLI appends while a file is scrubbed are scrubbed and
//! carried over before the rename (a few rounds; the report says when the file kept growing).

use std::io::{Read as _, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::config_dir::{ConfigDir, EntryKind, PROJECTS};
use super::lines::{Line, Lines};
use super::{valid, SavedSessions, SessionError};
use crate::redact::{markers, Redactor};

/// How many times the lines appended during a scrub are taken in before the rename.
const CATCH_UP_ROUNDS: usize = 4;
/// The largest JSON file beside a transcript that is scrubbed (`.meta.json`, `archived.json`).
const MAX_SIDE_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// How deep a session's directory is walked (subagents nest a level or two).
const MAX_DEPTH: usize = 8;

/// What a scrub did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ScrubReport {
    /// Every file read, in the order scrubbed.
    pub files: Vec<ScrubbedFile>,
}

impl ScrubReport {
    /// Secrets replaced in all the files.
    pub fn secrets(&self) -> u64 {
        self.files.iter().map(|f| f.secrets).sum()
    }

    /// Files rewritten.
    pub fn rewritten(&self) -> usize {
        self.files.iter().filter(|f| f.rewritten).count()
    }
}

/// What a scrub did to one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ScrubbedFile {
    /// The file, relative to the config directory.
    pub path: PathBuf,
    /// Lines read.
    pub lines: u64,
    /// Lines with at least one secret replaced.
    pub lines_changed: u64,
    /// Secrets replaced.
    pub secrets: u64,
    /// Whether the file was written anew (not in a dry run, not when nothing changed).
    pub rewritten: bool,
    /// Lines left as they were because they could not be read: too long, or not UTF-8 (their
    /// numbers; they may still hold a secret).
    pub unread_lines: Vec<u64>,
    /// The file grew while it was scrubbed, round after round: it was left as it was (the
    /// CLI is writing it; scrub it again once the session has ended).
    pub busy: bool,
}

impl SavedSessions {
    /// Redacts the saved session `session_id` in place: its transcript, its subagents'
    /// transcripts and the JSON files beside them, each rewritten atomically when a secret was
    /// found. With `dry_run`, only reports. `dir` narrows the search to one project, as in
    /// [`SavedSessions::rename`].
    pub fn scrub(
        &self,
        session_id: &str,
        dir: Option<&Path>,
        redactor: &Redactor,
        dry_run: bool,
    ) -> Result<ScrubReport, SessionError> {
        valid(session_id)?;
        let root = self.open()?;
        let located = root.locate(session_id, dir)?;
        let mut report = ScrubReport::default();
        let scrub = Scrub {
            root: &root,
            redactor,
            dry_run,
            max_line: self.limits().max_line_bytes,
        };
        report.files.push(scrub.transcript(&located.path)?);
        scrub.session_dir(&located.path.with_extension(""), 0, &mut report)?;
        Ok(report)
    }

    /// Redacts every saved session of the config directory (of one project with `dir`), as
    /// [`SavedSessions::scrub`] does one.
    pub fn scrub_all(
        &self,
        dir: Option<&Path>,
        redactor: &Redactor,
        dry_run: bool,
    ) -> Result<ScrubReport, SessionError> {
        let root = self.open()?;
        let projects = match dir {
            Some(dir) => root
                .find_project(&super::store::canonicalize(dir))?
                .into_iter()
                .collect(),
            None => root.project_names(),
        };
        let scrub = Scrub {
            root: &root,
            redactor,
            dry_run,
            max_line: self.limits().max_line_bytes,
        };
        let mut report = ScrubReport::default();
        for project in projects {
            let project_dir = Path::new(PROJECTS).join(&project);
            for (name, kind) in root.entries(&project_dir) {
                if kind != EntryKind::File || !name.ends_with(".jsonl") {
                    continue;
                }
                let transcript = project_dir.join(&name);
                report.files.push(scrub.transcript(&transcript)?);
                scrub.session_dir(&transcript.with_extension(""), 0, &mut report)?;
            }
        }
        Ok(report)
    }
}

/// How far a transcript was read: to the end of its last complete line, and its length then.
#[derive(Debug, Clone, Copy)]
struct Read {
    complete: u64,
    total: u64,
}

struct Scrub<'a> {
    root: &'a ConfigDir,
    redactor: &'a Redactor,
    dry_run: bool,
    max_line: usize,
}

impl Scrub<'_> {
    /// The files under a session's directory: transcripts, and small JSON files.
    fn session_dir(
        &self,
        dir: &Path,
        depth: usize,
        report: &mut ScrubReport,
    ) -> Result<(), SessionError> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        for (name, kind) in self.root.entries(dir) {
            let path = dir.join(&name);
            match kind {
                EntryKind::Dir => self.session_dir(&path, depth + 1, report)?,
                EntryKind::File if name.ends_with(".jsonl") => {
                    report.files.push(self.transcript(&path)?);
                }
                EntryKind::File if name.ends_with(".json") => {
                    if let Some(file) = self.side_file(&path)? {
                        report.files.push(file);
                    }
                }
                // Links are not followed; other files are not the CLI's JSON.
                _ => {}
            }
        }
        Ok(())
    }

    /// One transcript, line by line: read once to see whether it holds a secret, then (when
    /// it does) again into a new file beside it, which is renamed over it. Nothing is held
    /// but a line at a time.
    fn transcript(&self, path: &Path) -> Result<ScrubbedFile, SessionError> {
        let blank = ScrubbedFile {
            path: path.to_owned(),
            ..ScrubbedFile::default()
        };
        let mut seen = blank.clone();
        let read = self.lines(path, 0, &mut seen, &mut std::io::sink())?;
        self.tail(path, read, &mut seen, &mut std::io::sink())?;
        if seen.lines_changed == 0 || self.dry_run {
            return Ok(seen);
        }
        let mut file = blank;
        let temp = temp_beside(path);
        let mut writer = std::io::BufWriter::new(self.root.create_new(&temp)?.into_std());
        let written = (|| -> Result<(), SessionError> {
            let mut read = self.lines(path, 0, &mut file, &mut writer)?;
            // What the CLI appended meanwhile is scrubbed and carried over too; a last line
            // without its newline waits, in case the rest of it is being written.
            for _ in 0..CATCH_UP_ROUNDS {
                if self.root.file_len(path)?.unwrap_or(0) == read.total {
                    self.tail(path, read, &mut file, &mut writer)?;
                    writer.flush()?;
                    writer.get_ref().sync_all()?;
                    return Ok(());
                }
                read = self.lines(path, read.complete, &mut file, &mut writer)?;
            }
            file.busy = true;
            Ok(())
        })();
        drop(writer);
        if written.is_err() || file.busy {
            let _ = self.root.remove_file(&temp);
            return written.map(|()| file);
        }
        if let Err(err) = self.root.rename(&temp, path) {
            let _ = self.root.remove_file(&temp);
            return Err(err);
        }
        file.rewritten = true;
        Ok(file)
    }

    /// Writes the complete lines of `path` from `from` on, redacted, to `out`.
    fn lines(
        &self,
        path: &Path,
        from: u64,
        file: &mut ScrubbedFile,
        out: &mut dyn Write,
    ) -> Result<Read, SessionError> {
        let mut source = self.root.open_read(path)?;
        let total = source.seek(SeekFrom::End(0))?;
        source.seek(SeekFrom::Start(from))?;
        // What was there when it was measured: lines appended later wait for the next round.
        let mut lines = Lines::new((&mut source).take(total - from.min(total)), self.max_line);
        let mut complete = from;
        while let Some(line) = lines.next_line()? {
            let place = match &line {
                Line::Text(place, _) | Line::TooLong(place) => *place,
            };
            let next = from + place.offset + place.len + 1;
            if next > total {
                // No newline yet: the tail, read on its own.
                break;
            }
            file.lines += 1;
            let number = file.lines;
            complete = next;
            match line {
                Line::Text(_, bytes) => match std::str::from_utf8(bytes) {
                    Ok(text) => out.write_all(self.redact(text, file).as_bytes())?,
                    Err(_) => {
                        file.unread_lines.push(number);
                        out.write_all(bytes)?;
                    }
                },
                Line::TooLong(place) => {
                    file.unread_lines.push(number);
                    self.copy(path, from + place.offset, place.len, out)?;
                }
            }
            out.write_all(b"\n")?;
        }
        Ok(Read { complete, total })
    }

    /// Writes the last line of `path`, when it has no newline (yet), redacted to `out`.
    fn tail(
        &self,
        path: &Path,
        read: Read,
        file: &mut ScrubbedFile,
        out: &mut dyn Write,
    ) -> Result<(), SessionError> {
        if read.total <= read.complete {
            return Ok(());
        }
        let len = read.total - read.complete;
        file.lines += 1;
        if len > self.max_line as u64 {
            file.unread_lines.push(file.lines);
            return self.copy(path, read.complete, len, out);
        }
        let mut source = self.root.open_read(path)?;
        source.seek(SeekFrom::Start(read.complete))?;
        let mut bytes = Vec::new();
        source.take(len).read_to_end(&mut bytes)?;
        match std::str::from_utf8(&bytes) {
            Ok(text) => out.write_all(self.redact(text, file).as_bytes())?,
            Err(_) => {
                file.unread_lines.push(file.lines);
                out.write_all(&bytes)?;
            }
        }
        Ok(())
    }

    /// Copies `len` bytes of `path` from `offset` to `out` as they are (a line too long to
    /// read, never held whole).
    fn copy(
        &self,
        path: &Path,
        offset: u64,
        len: u64,
        out: &mut dyn Write,
    ) -> Result<(), SessionError> {
        let mut raw = self.root.open_read(path)?;
        raw.seek(SeekFrom::Start(offset))?;
        std::io::copy(&mut raw.take(len), out)?;
        Ok(())
    }

    /// One line redacted, counted in `file`.
    fn redact<'t>(&self, text: &'t str, file: &mut ScrubbedFile) -> std::borrow::Cow<'t, str> {
        let redacted = if text.trim_start().starts_with('{') {
            self.redactor.json_line(text)
        } else {
            self.redactor.text(text)
        };
        if redacted != text {
            file.lines_changed += 1;
            file.secrets += markers(&redacted).saturating_sub(markers(text)).max(1) as u64;
        }
        redacted
    }

    /// A small JSON file beside a transcript, as one document.
    fn side_file(&self, path: &Path) -> Result<Option<ScrubbedFile>, SessionError> {
        let Some(text) = self.root.read_small(path, MAX_SIDE_FILE_BYTES) else {
            return Ok(None);
        };
        let redacted = self.redactor.json_line(&text);
        let mut file = ScrubbedFile {
            path: path.to_owned(),
            lines: text.lines().count() as u64,
            ..ScrubbedFile::default()
        };
        if redacted == text {
            return Ok(Some(file));
        }
        file.lines_changed = 1;
        file.secrets = markers(&redacted).saturating_sub(markers(&text)).max(1) as u64;
        if self.dry_run {
            return Ok(Some(file));
        }
        let temp = temp_beside(path);
        let written = self.root.create_new(&temp).and_then(|created| {
            let mut created = created.into_std();
            created.write_all(redacted.as_bytes())?;
            created.sync_all()?;
            Ok(())
        });
        match written.and_then(|()| self.root.rename(&temp, path)) {
            Ok(()) => {
                file.rewritten = true;
                Ok(Some(file))
            }
            Err(err) => {
                let _ = self.root.remove_file(&temp);
                Err(err)
            }
        }
    }
}

/// A new name beside `path` for the file that replaces it.
fn temp_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.scrub", super::fork::new_uuid()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const ID: &str = "11111111-2222-4333-8444-555555555555";
    const KEY: &str = "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1";

    fn tree(lines: &[&[u8]], tail: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects/-work");
        std::fs::create_dir_all(&project).unwrap();
        let mut bytes = Vec::new();
        for line in lines {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(tail);
        let path = project.join(format!("{ID}.jsonl"));
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn lines_it_cannot_read_are_kept_byte_for_byte_and_named() {
        let secret = format!(r#"{{"type":"user","message":{{"content":"key {KEY}"}}}}"#);
        let long = format!(r#"{{"type":"user","pad":"{}"}}"#, "x".repeat(300));
        let not_text: &[u8] = b"{\"type\":\"user\",\"x\":\"\xff\xfe\"}";
        let tail = format!(r#"{{"type":"user","message":{{"content":"{KEY}"}}}}"#);
        let (dir, path) = tree(
            &[secret.as_bytes(), long.as_bytes(), not_text, b"plain"],
            tail.as_bytes(),
        );
        let store = SavedSessions::at(dir.path()).max_line_bytes(200);
        let redactor = Redactor::default();
        let report = store.scrub(ID, None, &redactor, false).unwrap();
        let file = &report.files[0];
        assert_eq!(file.lines, 5);
        assert_eq!(file.lines_changed, 2);
        assert_eq!(file.secrets, 2);
        assert!(file.rewritten);
        assert_eq!(file.unread_lines, vec![2, 3]);
        let after = std::fs::read(&path).unwrap();
        let lines: Vec<&[u8]> = after.split(|b| *b == b'\n').collect();
        assert_eq!(lines.len(), 5, "no newline added after the last line");
        assert_eq!(lines[1], long.as_bytes());
        assert_eq!(lines[2], not_text);
        assert_eq!(lines[3], b"plain");
        assert!(!String::from_utf8_lossy(&after).contains(KEY));
        // Once more: nothing to do, nothing written.
        let again = store.scrub(ID, None, &redactor, false).unwrap();
        assert_eq!((again.secrets(), again.rewritten()), (0, 0));
    }

    #[test]
    fn a_dry_run_reports_and_writes_nothing() {
        let line = format!(r#"{{"type":"user","message":{{"content":"{KEY}"}}}}"#);
        let (dir, path) = tree(&[line.as_bytes()], b"");
        let before = std::fs::read(&path).unwrap();
        let store = SavedSessions::at(dir.path());
        let report = store.scrub_all(None, &Redactor::default(), true).unwrap();
        assert_eq!((report.secrets(), report.rewritten()), (1, 0));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(matches!(
            store.scrub("not-a-uuid", None, &Redactor::default(), false),
            Err(SessionError::InvalidId(_))
        ));
    }
}
