//! The `can_use_tool` answer of `twinwire run`: `--deny`, then `--allow` and the "always"
//! answers of the session, then (on a terminal) the user, else a deny that says how to allow.

use std::collections::HashSet;
use std::future::Future;
use std::io::{BufRead, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, Notify};
use tokio_util::sync::CancellationToken;
use twinwire::host::callbacks::{can_use_tool, CanUseTool, PermissionRequest};
use twinwire::protocol::permission::{
    PermissionAllow, PermissionResult, PermissionUpdate, PermissionUpdateDestination,
};

use super::label::tool_label;
use crate::terminal::sanitize;
use crate::terminal::Style;
use twinwire_policy::{Decision, PermissionPolicy, Rule};

/// Decides tool permissions for one session.
pub struct Permissions {
    rules: Mutex<PermissionPolicy>,
    prompter: Option<Prompter>,
}

impl Permissions {
    /// Rules only: anything they do not allow is denied.
    pub fn new(rules: PermissionPolicy) -> Self {
        Self {
            rules: Mutex::new(rules),
            prompter: None,
        }
    }

    /// Asks on the terminal (stdin, stderr) for what the rules leave open, once the call's
    /// `⏺` line is `shown`.
    pub fn interactive(rules: PermissionPolicy, style: Style, shown: Arc<ShownTools>) -> Self {
        Self::asking(rules, style, shown, Box::new(StdinLines::start()))
    }

    /// Asks on stderr for what the rules leave open, reading the answers from `answers`.
    pub fn asking(
        rules: PermissionPolicy,
        style: Style,
        shown: Arc<ShownTools>,
        answers: Box<dyn AnswerSource>,
    ) -> Self {
        Self {
            rules: Mutex::new(rules),
            prompter: Some(Prompter {
                answers,
                asking: tokio::sync::Mutex::new(()),
                style,
                shown,
            }),
        }
    }

    /// The callback for [`twinwire::options::OptionsBuilder::can_use_tool`].
    pub fn into_callback(self) -> Arc<dyn CanUseTool> {
        Self::callback(&Arc::new(self))
    }

    /// The callback of a shared `Permissions`: sessions one after another (`/resume`) keep
    /// the rules and the "always" answers.
    pub fn callback(this: &Arc<Self>) -> Arc<dyn CanUseTool> {
        let this = this.clone();
        can_use_tool(move |request: PermissionRequest| {
            let this = this.clone();
            async move { Ok(this.decide(request).await) }
        })
    }

    /// The answer to one request.
    pub async fn decide(&self, request: PermissionRequest) -> PermissionResult {
        let tool = request.tool_name().to_owned();
        let input = request.input().clone();
        let label = tool_label(&tool, &input);
        let (decision, needed) = {
            let rules = self.rules();
            (rules.decide(&tool, &input), rules.suggest(&tool, &input))
        };
        match decision {
            Decision::Deny(rule) => PermissionResult::deny(format!("denied by --deny '{rule}'")),
            Decision::Allow(_) => PermissionResult::allow(input),
            Decision::Ask(reason) => match &self.prompter {
                Some(prompter) => match prompter
                    .ask(
                        &label,
                        &needed,
                        request.request.tool_use_id.as_deref(),
                        &request.cancel,
                    )
                    .await
                {
                    Some(Answer::Once) => PermissionResult::allow(input),
                    Some(Answer::Always) => {
                        if needed.is_empty() {
                            // A command no rule can describe narrowly: allowed this once only.
                            prompter.say("  allowed this once (no rule fits this command)");
                        } else {
                            prompter.say(&format!(
                                "  allowing {} for the rest of the session",
                                joined(&needed)
                            ));
                            let mut rules = self.rules();
                            for rule in needed {
                                rules.allow(rule);
                            }
                        }
                        let suggestions = request
                            .request
                            .permission_suggestions
                            .clone()
                            .unwrap_or_default();
                        PermissionResult::Allow(
                            PermissionAllow::new(input)
                                .with_updated_permissions(for_this_session(suggestions)),
                        )
                    }
                    Some(Answer::No) => PermissionResult::deny(format!(
                        "The user declined {label}. Ask them how to proceed."
                    )),
                    None => PermissionResult::deny(format!("{label} was not answered")),
                },
                None => PermissionResult::deny(not_allowed(&needed, &reason.to_string())),
            },
        }
    }

    fn rules(&self) -> std::sync::MutexGuard<'_, PermissionPolicy> {
        // A panic while holding the lock cannot leave the rules half-changed.
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The denial of a call the rules do not allow, with nobody to ask: the flags that would allow
/// it first (a message may be shown cut to one line), then why.
pub fn not_allowed(needed: &[Rule], why: &str) -> String {
    if needed.is_empty() {
        format!(
            "not allowed: {why}; no rule narrower than every call of the tool allows it (run \
             twinwire on a terminal to be asked)"
        )
    } else {
        let flags: Vec<String> = needed.iter().map(|r| format!("--allow '{r}'")).collect();
        format!(
            "not allowed without {} ({why}); run twinwire again with it, or on a terminal to be \
             asked",
            flags.join(" ")
        )
    }
}

/// Rules one after another: `Bash(ls:*), Bash(cat:*)`.
fn joined(rules: &[Rule]) -> String {
    rules
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The CLI's suggested rule updates, kept to this session: an "always" here must not write
/// to the user's or the project's settings files.
fn for_this_session(suggestions: Vec<PermissionUpdate>) -> Vec<PermissionUpdate> {
    suggestions
        .into_iter()
        .filter_map(|mut update| {
            let destination = match &mut update {
                PermissionUpdate::AddRules(u) => &mut u.destination,
                PermissionUpdate::ReplaceRules(u) => &mut u.destination,
                PermissionUpdate::RemoveRules(u) => &mut u.destination,
                PermissionUpdate::SetMode(u) => &mut u.destination,
                PermissionUpdate::AddDirectories(u) => &mut u.destination,
                PermissionUpdate::RemoveDirectories(u) => &mut u.destination,
                _ => return None,
            };
            *destination = PermissionUpdateDestination::Session;
            Some(update)
        })
        .collect()
}

/// An answer typed at the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Allow this call.
    Once,
    /// Allow this and similar calls for the rest of the session.
    Always,
    /// Deny.
    No,
}

impl Answer {
    /// Reads `y`, `yes`, `a`, `always`, `n`, `no` (any case).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Some(Self::Once),
            "a" | "always" => Some(Self::Always),
            "n" | "no" => Some(Self::No),
            _ => None,
        }
    }
}

/// The tool calls the renderer has shown. The CLI asks for a permission right after it
/// writes the call, and the two travel separately; a question waits (briefly) for its call's
/// line so that the terminal reads in order.
#[derive(Debug, Default)]
pub struct ShownTools {
    ids: Mutex<HashSet<String>>,
    changed: Notify,
}

impl ShownTools {
    /// How long a question waits for its call's line.
    const PATIENCE: Duration = Duration::from_secs(1);

    /// Records that the call `id` was shown.
    pub fn mark(&self, id: &str) {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.to_owned());
        self.changed.notify_waiters();
    }

    fn contains(&self, id: &str) -> bool {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(id)
    }

    /// Waits until `id` is shown, or [`Self::PATIENCE`] has passed.
    async fn wait_for(&self, id: &str) {
        let deadline = tokio::time::Instant::now() + Self::PATIENCE;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.contains(id) {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }
}

/// What one read of an answer gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A line (without its end).
    Line(String),
    /// The question was withdrawn before a line came.
    Withdrawn,
    /// The input ended.
    Closed,
}

/// Where the answers to permission questions are read from.
pub trait AnswerSource: Send + Sync {
    /// Called before a question is printed: forget what was typed before it (it is not an
    /// answer to it) and clear anything drawn on the line.
    fn start_question(&self);

    /// The next line typed, unless `cancel` fires or the input ends first.
    fn next_line<'a>(
        &'a self,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Typed> + Send + 'a>>;
}

/// Lines of stdin, read by a thread of their own. The thread lives until the process ends: a
/// read blocked on a terminal cannot be cancelled, and a question withdrawn by the CLI must not
/// keep the next answer.
struct StdinLines {
    lines: tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>,
}

impl StdinLines {
    fn start() -> Self {
        let (sender, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            lines: tokio::sync::Mutex::new(lines),
        }
    }
}

impl AnswerSource for StdinLines {
    fn start_question(&self) {
        if let Ok(mut lines) = self.lines.try_lock() {
            while lines.try_recv().is_ok() {}
        }
    }

    fn next_line<'a>(
        &'a self,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Typed> + Send + 'a>> {
        Box::pin(async move {
            let mut lines = self.lines.lock().await;
            tokio::select! {
                line = lines.recv() => line.map_or(Typed::Closed, Typed::Line),
                () = cancel.cancelled() => Typed::Withdrawn,
            }
        })
    }
}

/// Asks on stderr, reads the answers from its source. One question at a time.
struct Prompter {
    answers: Box<dyn AnswerSource>,
    asking: tokio::sync::Mutex<()>,
    style: Style,
    shown: Arc<ShownTools>,
}

impl Prompter {
    fn say(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", self.style.dim(&sanitize(text)));
    }

    /// Asks until a valid answer; `None` when the question is withdrawn or the input ends.
    /// `always` is the rule an "always" answer adds, when one fits.
    async fn ask(
        &self,
        label: &str,
        always: &[Rule],
        tool_use_id: Option<&str>,
        cancel: &CancellationToken,
    ) -> Option<Answer> {
        let _one_at_a_time = self.asking.lock().await;
        if let Some(id) = tool_use_id {
            self.shown.wait_for(id).await;
        }
        if cancel.is_cancelled() {
            return None;
        }
        self.answers.start_question();
        let always = if always.is_empty() {
            "[a]lways (this once: no rule fits)".to_owned()
        } else {
            format!("[a]lways {}", sanitize(&joined(always)))
        };
        loop {
            {
                let mut err = std::io::stderr().lock();
                let _ = write!(
                    err,
                    "Allow {}? [y]es once / {always} / [n]o ",
                    sanitize(label)
                );
                let _ = err.flush();
            }
            match self.answers.next_line(cancel).await {
                Typed::Line(line) => {
                    if let Some(answer) = Answer::parse(&line) {
                        return Some(answer);
                    }
                }
                Typed::Withdrawn => {
                    self.say("\n  (withdrawn)");
                    return None;
                }
                Typed::Closed => {
                    self.say("\n  (input closed: denied)");
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::{json, Value};
    use twinwire::protocol::control::CanUseToolRequest;
    use twinwire::protocol::permission::{PermissionBehavior, PermissionRuleValue};

    use super::*;

    fn request(tool: &str, input: Value) -> PermissionRequest {
        let request: CanUseToolRequest =
            serde_json::from_value(json!({"tool_name": tool, "input": input})).unwrap();
        PermissionRequest {
            request,
            cancel: CancellationToken::new(),
        }
    }

    fn rules(allow: &[&str], deny: &[&str]) -> PermissionPolicy {
        PermissionPolicy::parse(allow, deny).unwrap()
    }

    #[tokio::test]
    async fn rules_decide_without_a_terminal() {
        let permissions = Permissions::new(rules(&["Bash(touch*)"], &["Bash(touch /etc*)"]));
        let allowed = permissions
            .decide(request("Bash", json!({"command": "touch x"})))
            .await;
        assert_eq!(
            allowed,
            PermissionResult::allow(json!({"command": "touch x"}))
        );
        let PermissionResult::Deny(denied) = permissions
            .decide(request("Bash", json!({"command": "touch /etc/x"})))
            .await
        else {
            panic!("not denied");
        };
        assert!(denied.message.contains("--deny 'Bash(touch /etc*)'"));
        let PermissionResult::Deny(unmatched) = permissions
            .decide(request("Bash", json!({"command": "rm x"})))
            .await
        else {
            panic!("not denied");
        };
        assert!(
            unmatched.message.contains("--allow 'Bash(rm:*)'"),
            "{}",
            unmatched.message
        );
    }

    /// The denial names the rule that is missing, not one the user passed, first.
    #[tokio::test]
    async fn a_denial_names_only_what_is_missing_first() {
        let permissions = Permissions::new(rules(&["Bash(ls:*)"], &[]));
        let PermissionResult::Deny(denied) = permissions
            .decide(request(
                "Bash",
                json!({"command": "ls && cat /etc/hostname"}),
            ))
            .await
        else {
            panic!("not denied");
        };
        assert!(
            denied
                .message
                .starts_with("not allowed without --allow 'Bash(cat:*)' ("),
            "{}",
            denied.message
        );
        assert!(!denied.message.contains("Bash(ls:*)"), "{}", denied.message);
        let PermissionResult::Deny(unproven) = permissions
            .decide(request("Bash", json!({"command": "ls ${x@P}"})))
            .await
        else {
            panic!("not denied");
        };
        assert!(
            unproven.message.contains("parameter transformation"),
            "{}",
            unproven.message
        );
    }

    #[tokio::test]
    async fn a_question_waits_for_its_call_to_be_shown() {
        let shown = Arc::new(ShownTools::default());
        let waiter = {
            let shown = shown.clone();
            tokio::spawn(async move { shown.wait_for("toolu_1").await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        shown.mark("toolu_0");
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        shown.mark("toolu_1");
        tokio::time::timeout(Duration::from_millis(500), waiter)
            .await
            .expect("woken when shown")
            .expect("no panic");
        // Already shown: no wait at all.
        tokio::time::timeout(Duration::from_millis(50), shown.wait_for("toolu_1"))
            .await
            .expect("immediate");
    }

    #[test]
    fn answers() {
        assert_eq!(Answer::parse(" Y\n"), Some(Answer::Once));
        assert_eq!(Answer::parse("always"), Some(Answer::Always));
        assert_eq!(Answer::parse("n"), Some(Answer::No));
        assert_eq!(Answer::parse(""), None);
        assert_eq!(Answer::parse("maybe"), None);
    }

    #[test]
    fn suggestions_stay_in_the_session() {
        let local = PermissionUpdate::add_rules(
            vec![PermissionRuleValue::with_content("Bash", "touch:*")],
            PermissionBehavior::Allow,
            PermissionUpdateDestination::LocalSettings,
        );
        let kept = for_this_session(vec![local]);
        assert_eq!(
            kept[0].destination(),
            Some(&PermissionUpdateDestination::Session)
        );
    }
}
