//! A session's conversation kept on disk while the session waits between turns, once it is
//! past a size: thousands of idle sessions in one process ([`crate::in_process`]) then hold
//! their histories in files, not in memory. The conversation is written to a private file
//! (`0600`, in a `0700` directory under the temporary directory) when a turn ends, and read
//! back the moment anything touches the session's state again (`Session::state`);
//! no file stays open meanwhile. Off unless set (the binary serves one session).

use std::io::{BufReader, BufWriter, Write as _};
use std::path::PathBuf;
use std::sync::OnceLock;

use twinwire_protocol::content::MessageParam;

static SPILL_PAST: OnceLock<usize> = OnceLock::new();
static SPILL_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Keeps the files in `dir` rather than under the temporary directory. The first call sets it.
pub(crate) fn spill_in(dir: PathBuf) -> bool {
    SPILL_DIR.set(dir).is_ok()
}

/// Keeps conversations larger than `bytes` (as JSON) on disk between turns. The first call
/// sets it.
pub(crate) fn spill_past(bytes: usize) -> bool {
    SPILL_PAST.set(bytes).is_ok()
}

/// A conversation on disk: its file, removed when read back or dropped.
#[derive(Debug)]
pub(crate) struct Spilled {
    path: PathBuf,
}

impl Drop for Spilled {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_file(&self.path) {
            if err.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(%err, path = %self.path.display(), "could not remove a conversation kept on disk");
            }
        }
    }
}

/// The directory of the files, made private on first use.
fn dir() -> std::io::Result<PathBuf> {
    let dir = SPILL_DIR
        .get()
        .cloned()
        .unwrap_or_else(|| std::env::temp_dir().join("twinwire-agent-history"));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir)?;
    Ok(dir)
}

/// Moves `conversation` to a file when it is past the size set, leaving it empty; `None` (and
/// the conversation as it was) when it is smaller, when none is set, or when writing fails.
pub(crate) fn spill(conversation: &mut Vec<MessageParam>) -> Option<Spilled> {
    let limit = *SPILL_PAST.get()?;
    let bytes = serde_json::to_vec(&*conversation).ok()?;
    if bytes.len() <= limit {
        return None;
    }
    let written = (|| -> std::io::Result<PathBuf> {
        let mut file = tempfile::Builder::new()
            .prefix("conversation-")
            .suffix(".json")
            .tempfile_in(dir()?)?;
        {
            let mut out = BufWriter::new(file.as_file_mut());
            out.write_all(&bytes)?;
            out.flush()?;
        }
        let (_, path) = file.keep().map_err(|err| err.error)?;
        Ok(path)
    })();
    match written {
        Ok(path) => {
            *conversation = Vec::new();
            Some(Spilled { path })
        }
        Err(err) => {
            tracing::warn!(%err, "could not keep the conversation on disk: it stays in memory");
            None
        }
    }
}

/// Reads the conversation back, before what was added while it was on disk, and removes the
/// file.
pub(crate) fn restore(
    spilled: Spilled,
    conversation: &mut Vec<MessageParam>,
) -> std::io::Result<()> {
    let file = std::fs::File::open(&spilled.path)?;
    let mut earlier: Vec<MessageParam> =
        serde_json::from_reader(BufReader::new(file)).map_err(std::io::Error::other)?;
    earlier.append(conversation);
    *conversation = earlier;
    drop(spilled);
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use twinwire_protocol::content::UserContent;

    #[test]
    fn a_large_conversation_goes_to_disk_and_comes_back_whole() {
        spill_past(1024);
        let mut small = vec![MessageParam::user(UserContent::Text("hi".into()))];
        assert!(spill(&mut small).is_none(), "small ones stay");
        let long = "x".repeat(4096);
        let original = vec![
            MessageParam::user(UserContent::Text(long.clone())),
            MessageParam::user(UserContent::Text("second".into())),
        ];
        let mut conversation = original.clone();
        let spilled = spill(&mut conversation).unwrap();
        assert!(conversation.is_empty());
        let path = spilled.path.clone();
        assert!(std::fs::read_to_string(&path).unwrap().contains(&long));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // A note added while it was away comes after it.
        conversation.push(MessageParam::user(UserContent::Text("later".into())));
        restore(spilled, &mut conversation).unwrap();
        assert_eq!(conversation.len(), 3);
        assert_eq!(conversation[..2], original[..]);
        assert!(!path.exists(), "the file goes once read back");
    }
}
