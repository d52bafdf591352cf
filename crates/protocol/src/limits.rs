//! Usage limits as Claude Code words them: which of its messages say that a usage limit was
//! reached, that an org policy refuses the service, that the session now draws on credits, or
//! that a limit is near.
//!
//! The CLI reports a reached limit as text (an assistant message's text, a `result`'s text or
//! `errors`), not as a code. The prefixes are the ones the official TypeScript SDK exports
//! (`USAGE_LIMIT_ERROR_PREFIXES`, `ORG_POLICY_LIMIT_PREFIXES`, `USAGE_TRANSITION_PREFIXES`,
//! `USAGE_WARNING_PREFIXES` in `sdk.d.ts`); the peers suite checks that they are the same lists
//! as the SDK's pinned version.

/// Messages meaning a usage limit was reached (the turn failed for it).
pub const USAGE_LIMIT_ERROR_PREFIXES: &[&str] = &[
    "You've hit your",
    "You've reached your",
    "You're out of usage credits",
    "Your org is out of usage · add funds to continue",
    "Your org is out of usage · contact your admin",
    "Your seat type doesn't include usage credits",
    "Your seat type doesn't include usage",
    "Your usage allocation has been disabled by your admin",
    "Your group's usage limit is set to $0",
    "Fable 5 requires usage credits",
    "You're out of extra usage",
    "Your seat type doesn't include extra usage",
];

/// Messages on the same error path that are an org policy, not an exhausted limit.
pub const ORG_POLICY_LIMIT_PREFIXES: &[&str] = &["This service is disabled for your org"];

/// Notices that the session now draws on credits or an allocation (never an API error).
pub const USAGE_TRANSITION_PREFIXES: &[&str] = &[
    "You're now using usage credits",
    "You're now using your usage allocation",
    "Now using your usage allocation",
    "Now using usage credits",
    "Now using credits",
    "You're now using extra usage",
    "Now using extra usage",
];

/// Warnings that a limit is near (never an API error).
pub const USAGE_WARNING_PREFIXES: &[&str] = &["You've used", "You're close to"];

/// What a message of Claude Code says about usage limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitNotice {
    /// A usage limit was reached: the request was refused for it.
    Reached,
    /// An org policy refuses the service (not a limit that resets).
    OrgPolicy,
    /// The session now draws on usage credits or an allocation.
    Transition,
    /// A limit is near.
    Warning,
}

impl LimitNotice {
    /// What `text` says about usage limits, if it is one of Claude Code's limit messages
    /// (leading white space ignored; the CLI sometimes prefixes an API error's text with it).
    pub fn of(text: &str) -> Option<Self> {
        let text = text.trim_start();
        let starts = |prefixes: &[&str]| prefixes.iter().any(|p| text.starts_with(p));
        if starts(USAGE_LIMIT_ERROR_PREFIXES) {
            Some(Self::Reached)
        } else if starts(ORG_POLICY_LIMIT_PREFIXES) {
            Some(Self::OrgPolicy)
        } else if starts(USAGE_TRANSITION_PREFIXES) {
            Some(Self::Transition)
        } else if starts(USAGE_WARNING_PREFIXES) {
            Some(Self::Warning)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_is_told_apart_and_others_are_none() {
        assert_eq!(
            LimitNotice::of("You've hit your limit · resets 5pm (Europe/Paris)"),
            Some(LimitNotice::Reached)
        );
        assert_eq!(
            LimitNotice::of("  Your org is out of usage · contact your admin"),
            Some(LimitNotice::Reached)
        );
        assert_eq!(
            LimitNotice::of("This service is disabled for your org"),
            Some(LimitNotice::OrgPolicy)
        );
        assert_eq!(
            LimitNotice::of("Now using extra usage"),
            Some(LimitNotice::Transition)
        );
        assert_eq!(
            LimitNotice::of("You've used 90% of your weekly limit"),
            Some(LimitNotice::Warning)
        );
        for other in ["", "API Error: 500", "you've hit your limit", "Hello"] {
            assert_eq!(LimitNotice::of(other), None, "{other:?}");
        }
    }

    #[test]
    fn the_lists_do_not_overlap() {
        let lists = [
            USAGE_LIMIT_ERROR_PREFIXES,
            ORG_POLICY_LIMIT_PREFIXES,
            USAGE_TRANSITION_PREFIXES,
            USAGE_WARNING_PREFIXES,
        ];
        for (i, list) in lists.iter().enumerate() {
            for prefix in *list {
                for other in lists.iter().skip(i + 1) {
                    assert!(
                        !other
                            .iter()
                            .any(|o| o.starts_with(prefix) || prefix.starts_with(o)),
                        "{prefix:?} is in two lists"
                    );
                }
            }
        }
    }
}
