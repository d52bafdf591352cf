//! [`query`]: one prompt (or a stream of them) in, a stream of typed messages out.

use std::pin::Pin;
use std::task::{Context, Poll};

use ccwire_protocol::content::UserContent;
use ccwire_protocol::{Message, UserMessage};
use futures::stream::{BoxStream, StreamExt};
use futures::Stream;

use crate::{Client, Options, Result};

/// What to send: one prompt, or a stream of user messages for a longer conversation.
pub enum Prompt {
    /// One user turn.
    Text(UserContent),
    /// User messages sent as they come; stdin closes after the stream ends and the last turn
    /// is done.
    Stream(BoxStream<'static, UserMessage>),
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Text(content) => f.debug_tuple("Text").field(content).finish(),
            Self::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Self {
        Self::Text(UserContent::from(text))
    }
}

impl From<String> for Prompt {
    fn from(text: String) -> Self {
        Self::Text(UserContent::from(text))
    }
}

impl From<UserContent> for Prompt {
    fn from(content: UserContent) -> Self {
        Self::Text(content)
    }
}

impl Prompt {
    /// A prompt made of a stream of user messages.
    pub fn stream(messages: impl Stream<Item = UserMessage> + Send + 'static) -> Self {
        Self::Stream(messages.boxed())
    }
}

/// Runs `claude` on `prompt` and streams every message it writes, in order, until it exits.
/// Failing to start comes as the first item; a crash as the last.
///
/// ```no_run
/// # async fn demo() {
/// use ccwire::{query, Options};
/// use ccwire::protocol::Message;
/// use futures::StreamExt;
///
/// let mut messages = query("Say hello", Options::default());
/// while let Some(message) = messages.next().await {
///     match message {
///         Ok(Message::Assistant(reply)) => println!("{}", reply.message.text()),
///         Ok(Message::Result(result)) => println!("cost: ${}", result.total_cost_usd),
///         Ok(_) => {}
///         Err(err) => eprintln!("{err}"),
///     }
/// }
/// # }
/// ```
pub fn query(prompt: impl Into<Prompt>, options: Options) -> MessageStream {
    let prompt = prompt.into();
    let stream = futures::stream::once(start(prompt, options))
        .flat_map(|started| match started {
            Ok(client) => drain(client).boxed(),
            Err(err) => futures::stream::once(async move { Err(err) }).boxed(),
        })
        .boxed();
    MessageStream { inner: stream }
}

/// The messages of a [`query`]. Dropping it ends the CLI (its whole process group) at once.
pub struct MessageStream {
    inner: BoxStream<'static, Result<Message>>,
}

impl std::fmt::Debug for MessageStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MessageStream")
    }
}

impl Stream for MessageStream {
    type Item = Result<Message>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

async fn start(prompt: Prompt, options: Options) -> Result<Client> {
    let client = Client::connect(options).await?;
    match prompt {
        Prompt::Text(content) => {
            client.send(content).await?;
            let closer = client.clone();
            tokio::spawn(async move { closer.end_input_after(0).await });
        }
        Prompt::Stream(mut messages) => {
            let feeder = client.clone();
            tokio::spawn(async move {
                let mut baseline = 0;
                while let Some(message) = messages.next().await {
                    baseline = feeder.results_seen();
                    if feeder.send_message(message).await.is_err() {
                        return;
                    }
                }
                feeder.end_input_after(baseline).await;
            });
        }
    }
    Ok(client)
}

/// Every message until the CLI's output ends; the client (and so the process) lives as long as
/// the stream.
fn drain(client: Client) -> impl Stream<Item = Result<Message>> {
    futures::stream::unfold(client, |client| async move {
        let item = client.receive().await?;
        Some((item, client))
    })
}
