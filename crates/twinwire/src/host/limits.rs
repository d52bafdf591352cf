//! Usage limits waited out: a turn that ends because a usage limit was reached waits until
//! the reset the CLI named, then goes on in the same session.
//!
//! Opt in with [`OptionsBuilder::usage_limits`](crate::options::OptionsBuilder::usage_limits).
//! [`Client::receive_response`](crate::Client::receive_response) then does not end at a result
//! that reports a reached limit ([`LimitNotice::Reached`]) whose reset is within the policy's
//! `max_wait`: it yields that result, tells the policy's callback ([`LimitWait`]), waits in a
//! `usage_limit_wait` span, sends the policy's continue prompt and goes on with the messages of
//! the continued turn up to its own result. A reset further away, or none the host can read,
//! ends the stream at the result as without the option; so does a limit that holds again after
//! [`MAX_WAITS_PER_TURN`] waits, and every wait is at least [`MIN_WAIT`] (a reset already past
//! never makes the host ask again at once).
//!
//! The reset is read, first found first, from a `rate_limit_event` of the turn that says
//! `rejected` with `resetsAt` (a claude.ai subscription), else from the words `resets <RFC 3339
//! time>` of the limit's message. Each generation words the result differently: 2.1.x writes
//! `API Error: Request rejected (429) · <message>`, 2.0.x and 1.0.x `API Error: 429 <the API's
//! JSON body>`; both are read.
//!
//! The wait ends early when the CLI's output ends (the session was closed); dropping the stream
//! cancels it.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use twinwire_protocol::events::RateLimitStatus;
use twinwire_protocol::limits::LimitNotice;
use twinwire_protocol::Message;

use crate::host::Client;

/// The waits one turn may take before the host gives up on a limit that persists: a limit that
/// holds after its reset ends the turn at it instead of asking again and again.
pub const MAX_WAITS_PER_TURN: u32 = 3;
/// The shortest wait: a reset already past (the API's clock and this one differ) still waits
/// this long, so a limit that persists is never asked again at once.
pub const MIN_WAIT: Duration = Duration::from_secs(1);

/// The prompt sent after the reset, unless the policy gives another.
pub const DEFAULT_CONTINUE_PROMPT: &str = "Continue from where you left off.";

/// The policy's callback, told of each wait before it begins.
type OnWait = Arc<dyn Fn(&LimitWait) + Send + Sync>;

/// What a session does when its turn ends at a reached usage limit.
#[derive(Clone)]
pub struct LimitPolicy {
    max_wait: Duration,
    continue_prompt: String,
    on_wait: Option<OnWait>,
}

impl LimitPolicy {
    /// Waits for a reset at most `max_wait` away, then continues the turn.
    pub fn wait(max_wait: Duration) -> Self {
        LimitPolicy {
            max_wait,
            continue_prompt: DEFAULT_CONTINUE_PROMPT.to_owned(),
            on_wait: None,
        }
    }

    /// The prompt sent after the reset (by default [`DEFAULT_CONTINUE_PROMPT`]).
    #[must_use]
    pub fn continue_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.continue_prompt = prompt.into();
        self
    }

    /// Called once before each wait, with what is waited for.
    #[must_use]
    pub fn on_wait(mut self, callback: impl Fn(&LimitWait) + Send + Sync + 'static) -> Self {
        self.on_wait = Some(Arc::new(callback));
        self
    }

    /// The longest wait.
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }
}

impl fmt::Debug for LimitPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LimitPolicy")
            .field("max_wait", &self.max_wait)
            .field("continue_prompt", &self.continue_prompt)
            .field("on_wait", &self.on_wait.is_some())
            .finish()
    }
}

/// A wait for a usage limit's reset, as the policy's callback is told of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LimitWait {
    /// What the CLI said: always [`LimitNotice::Reached`] for a wait.
    pub notice: LimitNotice,
    /// When the limit resets.
    pub reset_at: SystemTime,
    /// How long the host waits (the time to the reset when the wait began).
    pub wait: Duration,
    /// The limit's message as the CLI gave it (`You've hit your limit · resets …`).
    pub message: String,
}

/// A reached limit read from a turn's messages: its message and, if one was named, its reset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReachedLimit {
    /// The limit's message, without the CLI's `API Error: …` wrapping.
    pub message: String,
    /// The reset, from a `rate_limit_event` or the message's `resets <time>`.
    pub reset_at: Option<SystemTime>,
}

/// What the stream keeps of the turn to read a limit from its result.
#[derive(Debug, Default)]
pub(crate) struct TurnLimits {
    /// The reset of the turn's last `rate_limit_event` that said `rejected`.
    rejected_until: Option<SystemTime>,
}

impl TurnLimits {
    /// Notes a message of the turn; a result that reports a reached limit gives it.
    pub(crate) fn observe(&mut self, message: &Message) -> Option<ReachedLimit> {
        match message {
            Message::RateLimitEvent(event) => {
                let info = &event.rate_limit_info;
                if info.status == RateLimitStatus::Rejected {
                    self.rejected_until = info.resets_at.map(unix_seconds);
                }
                None
            }
            Message::Result(result) if result.is_error => {
                let texts = result.result.iter().chain(result.errors.iter().flatten());
                let reached = texts.filter_map(|text| reached_limit(text)).next()?;
                let rejected_until = self.rejected_until.take();
                Some(ReachedLimit {
                    reset_at: rejected_until.or(reached.reset_at),
                    message: reached.message,
                })
            }
            _ => None,
        }
    }
}

/// The reached limit a result's text (or one of its `errors`) reports, if it reports one.
pub fn reached_limit(text: &str) -> Option<ReachedLimit> {
    let message = unwrapped(text);
    if LimitNotice::of(&message) != Some(LimitNotice::Reached) {
        return None;
    }
    let reset_at = reset_named_in(&message);
    Some(ReachedLimit { message, reset_at })
}

/// The API's message inside the CLI's wording of an API error.
fn unwrapped(text: &str) -> String {
    let text = text.trim();
    let Some(rest) = text.strip_prefix("API Error: ") else {
        return text.to_owned();
    };
    if let Some((_, message)) = rest.split_once("(429) · ") {
        return message.to_owned();
    }
    let body = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|body| {
            body.pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| rest.to_owned())
}

/// The time after `resets ` in a limit's message, when it is an RFC 3339 time.
fn reset_named_in(message: &str) -> Option<SystemTime> {
    let (_, after) = message.split_once("resets ")?;
    let word = after.split_whitespace().next()?;
    let at =
        time::OffsetDateTime::parse(word, &time::format_description::well_known::Rfc3339).ok()?;
    u64::try_from(at.unix_timestamp()).ok().map(unix_seconds)
}

fn unix_seconds(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Where [`turn_stream`] is: reading the turn, about to wait out a limit, or done.
enum Step {
    /// Reading the turn; the waits taken so far.
    Reading(TurnLimits, u32),
    /// About to wait out a limit; the waits taken before it.
    Waiting(ReachedLimit, u32),
    Done,
}

/// The messages of the current turn up to its result; with a policy, a result reporting a
/// reached limit is followed by the wait, the continue prompt and the continued turn.
pub(crate) fn turn_stream<'a>(
    client: &'a Client,
    policy: Option<&'a LimitPolicy>,
) -> impl futures::Stream<Item = crate::Result<Message>> + 'a {
    futures::stream::unfold(Step::Reading(TurnLimits::default(), 0), move |step| {
        async move {
            let (mut turn, waits) = match step {
                Step::Done => return None,
                Step::Reading(turn, waits) => (turn, waits),
                Step::Waiting(limit, waits) => {
                    if !wait_out(client, policy?, limit).await {
                        return None;
                    }
                    (TurnLimits::default(), waits + 1)
                }
            };
            let item = client.receive().await?;
            // A `result` ends the turn even when it could not be typed.
            let is_result = matches!(&item, Ok(message) if message.result_is_error().is_some());
            let reached = match (&policy, &item) {
                (Some(_), Ok(message)) => turn.observe(message),
                _ => None,
            };
            let next = match reached {
                Some(limit) if waits >= MAX_WAITS_PER_TURN => {
                    tracing::warn!(message = %limit.message, waits, "usage limit reached again after its reset; not waiting again");
                    Step::Done
                }
                Some(limit) if limit.reset_at.is_some() => Step::Waiting(limit, waits),
                Some(limit) => {
                    tracing::warn!(message = %limit.message, "usage limit reached; no reset named, not waiting");
                    Step::Done
                }
                None if is_result => Step::Done,
                None => Step::Reading(turn, waits),
            };
            Some((item, next))
        }
    })
}

/// How long to wait from `now` for a reset at `reset_at`: at least [`MIN_WAIT`].
fn wait_until(reset_at: SystemTime, now: SystemTime) -> Duration {
    reset_at
        .duration_since(now)
        .unwrap_or(Duration::ZERO)
        .max(MIN_WAIT)
}

/// Waits out `limit` under `policy` and continues the session; false when the host does not
/// wait (no reset named, too far away, or the session ended while waiting).
pub(crate) async fn wait_out(client: &Client, policy: &LimitPolicy, limit: ReachedLimit) -> bool {
    let Some(reset_at) = limit.reset_at else {
        return false;
    };
    let wait = wait_until(reset_at, SystemTime::now());
    if wait > policy.max_wait {
        tracing::warn!(
            wait_secs = wait.as_secs(),
            max_wait_secs = policy.max_wait.as_secs(),
            "usage limit reached; the reset is further away than the policy waits"
        );
        return false;
    }
    let event = LimitWait {
        notice: LimitNotice::Reached,
        reset_at,
        wait,
        message: limit.message,
    };
    if let Some(callback) = &policy.on_wait {
        callback(&event);
    }
    let span = tracing::info_span!(
        "usage_limit_wait",
        wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
        message = %event.message,
    );
    let waited = async {
        tokio::select! {
            () = tokio::time::sleep(wait) => true,
            _ = client.connection().closed() => false,
        }
    };
    if !tracing::Instrument::instrument(waited, span).await {
        return false;
    }
    match client.send(policy.continue_prompt.as_str()).await {
        Ok(()) => true,
        Err(error) => {
            tracing::warn!(%error, "usage limit waited out; the continue prompt was not sent");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_generation_s_wording_is_read_with_its_reset() {
        let reset = Some(unix_seconds(1_795_911_605));
        let new = "API Error: Request rejected (429) · You've hit your limit · resets 2026-11-29T00:20:05Z";
        let old = r#"API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"You've hit your limit · resets 2026-11-29T00:20:05Z"}}"#;
        for text in [
            new,
            old,
            "You've hit your limit · resets 2026-11-29T00:20:05Z",
        ] {
            let limit = reached_limit(text).unwrap();
            assert_eq!(limit.reset_at, reset, "{text}");
            assert!(limit.message.starts_with("You've hit your limit"), "{text}");
        }
        let limit = reached_limit("You've hit your limit · resets 5pm (Europe/Paris)").unwrap();
        assert_eq!(limit.reset_at, None);
        for other in [
            "API Error: Request rejected (429) · This request would exceed your rate limit.",
            "API Error: 500 {}",
            "Hello",
        ] {
            assert_eq!(reached_limit(other), None, "{other}");
        }
    }

    #[test]
    fn a_reset_already_past_still_waits_a_moment() {
        let now = unix_seconds(1_000);
        assert_eq!(
            wait_until(unix_seconds(1_010), now),
            Duration::from_secs(10)
        );
        assert_eq!(wait_until(unix_seconds(900), now), MIN_WAIT);
        assert_eq!(wait_until(now, now), MIN_WAIT);
    }

    #[test]
    fn a_rejected_rate_limit_event_names_the_reset() {
        let event: Message = serde_json::from_value(serde_json::json!({
            "type": "rate_limit_event", "uuid": "u", "session_id": "s",
            "rate_limit_info": {"status": "rejected", "resetsAt": 1_795_911_000u64}
        }))
        .unwrap();
        let result: Message = serde_json::from_value(serde_json::json!({
            "type": "result", "subtype": "success", "is_error": true, "duration_ms": 1,
            "duration_api_ms": 0, "num_turns": 1, "session_id": "s", "total_cost_usd": 0,
            "usage": {}, "uuid": "r",
            "result": "You've hit your limit · resets 5pm (Europe/Paris)"
        }))
        .unwrap();
        let mut turn = TurnLimits::default();
        assert_eq!(turn.observe(&event), None);
        let limit = turn.observe(&result).unwrap();
        assert_eq!(limit.reset_at, Some(unix_seconds(1_795_911_000)));
    }
}
