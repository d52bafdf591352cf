//! When a failed model call is tried again, and after how long: 408, 409, 429, 529 and every
//! 5xx, and connections that failed, with exponential backoff and jitter, or the wait the API
//! asked for in `retry-after-ms` / `retry-after`.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// How many times a call is retried unless `CLAUDE_CODE_MAX_RETRIES` says otherwise (Claude
/// Code's default too).
pub const DEFAULT_MAX_RETRIES: u32 = 10;
/// The first backoff.
const BASE_DELAY: Duration = Duration::from_millis(500);
/// The longest backoff this side chooses.
const MAX_BACKOFF: Duration = Duration::from_secs(32);
/// The longest wait a `retry-after` may impose: beyond it the call fails instead of hanging.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

/// The retry policy of a model client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff (doubled on each retry up to 32 s).
    pub base_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: DEFAULT_MAX_RETRIES,
            base_delay: BASE_DELAY,
        }
    }
}

impl RetryPolicy {
    /// The policy of this environment (`CLAUDE_CODE_MAX_RETRIES`).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Self {
        let max_retries = get("CLAUDE_CODE_MAX_RETRIES")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(DEFAULT_MAX_RETRIES);
        Self {
            max_retries,
            ..Self::default()
        }
    }

    /// The wait before retry number `attempt` (1 for the first retry): the server's, when it
    /// named one, else the backoff.
    pub fn delay(&self, attempt: u32, headers: Option<&HeaderMap>) -> Duration {
        if let Some(asked) = headers.and_then(retry_after) {
            return asked.min(MAX_RETRY_AFTER);
        }
        let doubled = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        let backoff = doubled.min(MAX_BACKOFF);
        // Up to a quarter more, so that many sessions hit by one outage do not retry in step.
        let jitter = backoff.mul_f64(f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 1024.0);
        backoff + jitter
    }
}

/// Whether a response status is worth another try.
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 529) || (500..600).contains(&status)
}

/// What the server said of a retry in `x-should-retry` (`true` or `false`), if it said: a
/// usage limit comes with `false`, and retrying it would only spin until the reset.
pub fn server_says_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The wait the server asked for: `retry-after-ms` (milliseconds) or `retry-after` (seconds;
/// an HTTP date is not honored).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let seconds = header("retry-after")?.parse::<f64>().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn the_servers_wait_wins_and_is_capped() {
        let policy = RetryPolicy::default();
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(policy.delay(1, Some(&headers)), Duration::from_secs(2));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(policy.delay(1, Some(&headers)), Duration::from_millis(150));
        headers.remove("retry-after-ms");
        headers.insert("retry-after", HeaderValue::from_static("100000"));
        assert_eq!(policy.delay(1, Some(&headers)), MAX_RETRY_AFTER);
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let policy = RetryPolicy::default();
        let first = policy.delay(1, None);
        assert!(
            first >= BASE_DELAY && first <= BASE_DELAY.mul_f64(1.25),
            "{first:?}"
        );
        let third = policy.delay(3, None);
        assert!(third >= BASE_DELAY * 4, "{third:?}");
        let late = policy.delay(30, None);
        assert!(
            late >= MAX_BACKOFF && late <= MAX_BACKOFF.mul_f64(1.25),
            "{late:?}"
        );
    }

    #[test]
    fn the_server_may_say_whether_to_retry() {
        let mut headers = HeaderMap::new();
        assert_eq!(server_says_retry(&headers), None);
        headers.insert("x-should-retry", HeaderValue::from_static("false"));
        assert_eq!(server_says_retry(&headers), Some(false));
        headers.insert("x-should-retry", HeaderValue::from_static("true"));
        assert_eq!(server_says_retry(&headers), Some(true));
    }

    #[test]
    fn which_statuses_are_retried() {
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(is_retryable(status), "{status}");
        }
        for status in [400, 401, 403, 404, 413] {
            assert!(!is_retryable(status), "{status}");
        }
    }
}
