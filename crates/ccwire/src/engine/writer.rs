//! The writer task: the only owner of the peer's input.

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

pub(crate) enum WriterCommand {
    /// One serialized frame, ending in `\n`.
    Line(Vec<u8>),
    /// Write what is queued, then close the peer's input.
    Close,
}

/// Writes frames in order, flushing whenever the queue runs empty (so a lone frame goes out at
/// once and a burst goes out in few writes). Ends at `Close`, when every sender is gone, or
/// when the peer stops reading; dropping the writer closes the peer's input.
pub(crate) async fn run<W: AsyncWrite + Unpin>(
    writer: W,
    mut commands: mpsc::UnboundedReceiver<WriterCommand>,
) {
    let mut writer = BufWriter::with_capacity(64 * 1024, writer);
    while let Some(command) = commands.recv().await {
        match command {
            WriterCommand::Line(line) => {
                if let Err(err) = writer.write_all(&line).await {
                    tracing::debug!(%err, "peer stopped reading its input");
                    return;
                }
                if commands.is_empty() {
                    if let Err(err) = writer.flush().await {
                        tracing::debug!(%err, "peer stopped reading its input");
                        return;
                    }
                }
            }
            WriterCommand::Close => break,
        }
    }
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
    tracing::debug!("closed the peer's input");
}
