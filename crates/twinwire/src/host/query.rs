//! [`query`]: one prompt (or a stream of them) in, a stream of typed messages out.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::stream::{BoxStream, StreamExt};
use futures::Stream;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::{Message, UserMessage};

use super::client::Messages;
use crate::error::Result;
use crate::host::options::Options;
use crate::host::Client;

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
/// use twinwire::{query, Options};
/// use twinwire::protocol::Message;
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
    let starting = async move { start(prompt, options).await.map(Client::into_messages) };
    // The session's span goes under the caller's span here, not under whichever span first
    // polls the stream.
    let starting = tracing::Instrument::in_current_span(starting);
    MessageStream {
        state: State::Starting(Box::pin(starting)),
    }
}

/// The messages of a [`query`]. Dropping it ends the CLI (its whole process group) at once.
pub struct MessageStream {
    state: State,
}

enum State {
    Starting(BoxFuture<'static, Result<Messages>>),
    /// The client (and so the process) lives as long as the stream.
    Streaming(Messages),
    Done,
}

impl MessageStream {
    /// What the turn that `result` ended used, per agent (the main thread, each subagent) and
    /// per tool call, with the shares of its cost (see [`Client::turn_usage`]); `None` before
    /// the session has started or for a result it did not end.
    pub fn turn_usage(
        &self,
        result: &twinwire_protocol::result::ResultMessage,
    ) -> Option<crate::host::usage::TurnUsage> {
        match &self.state {
            State::Streaming(messages) => messages.turn_usage(result),
            _ => None,
        }
    }
}

impl std::fmt::Debug for MessageStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MessageStream")
    }
}

impl Stream for MessageStream {
    type Item = Result<Message>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match &mut self.state {
                State::Starting(starting) => match starting.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(messages)) => self.state = State::Streaming(messages),
                    // Failing to start is the only item.
                    Poll::Ready(Err(err)) => {
                        self.state = State::Done;
                        return Poll::Ready(Some(Err(err)));
                    }
                },
                State::Streaming(messages) => {
                    let item = std::task::ready!(Pin::new(messages).poll_next(cx));
                    if item.is_none() {
                        self.state = State::Done;
                    }
                    return Poll::Ready(item);
                }
                State::Done => return Poll::Ready(None),
            }
        }
    }
}

async fn start(prompt: Prompt, options: Options) -> Result<Client> {
    let client = Client::connect(options).await?;
    match prompt {
        Prompt::Text(content) => {
            client.send(content).await?;
            let closer = client.clone();
            tokio::spawn(async move { closer.end_input_when_idle().await });
        }
        Prompt::Stream(mut messages) => {
            let feeder = client.clone();
            tokio::spawn(async move {
                while let Some(message) = messages.next().await {
                    if feeder.send_message(message).await.is_err() {
                        return;
                    }
                }
                feeder.end_input_when_idle().await;
            });
        }
    }
    Ok(client)
}
