use serde_json::json;

use super::*;

fn log() -> DecisionLog {
    // Every call is explained as covered by one rule of the project's settings.
    let explainer: Explainer = Arc::new(|tool: &str, _: &Value| DecidedBy::Rule {
        rule: Some(format!("{tool}(ls:*)")),
        source: Some("projectSettings".into()),
        path: None,
    });
    let mut log = DecisionLog::new(Some(explainer));
    log.mode = Some("default".into());
    log
}

fn reported<'a>(decision: &'a str, source: &'a str, reason: Option<&'a str>) -> Reported<'a> {
    Reported {
        decision,
        source: Some(source),
        reason_type: reason,
    }
}

#[test]
fn what_the_cli_reports_is_told_with_the_rule_the_mode_the_hook_or_the_callback() {
    let mut log = log();
    for id in ["a", "b", "c", "d", "e"] {
        log.tool_used(id, "Bash", None, json!({"command": "ls"}));
    }
    let rule = log
        .tool_result("a", false, Some(reported("accept", "config", Some("rule"))))
        .unwrap();
    assert_eq!(rule.verdict, Verdict::Allowed);
    assert!(rule.reported);
    assert_eq!(
        rule.decided_by,
        DecidedBy::Rule {
            rule: Some("Bash(ls:*)".into()),
            source: Some("projectSettings".into()),
            path: None
        }
    );
    let mode = log
        .tool_result("b", false, Some(reported("accept", "config", Some("mode"))))
        .unwrap();
    assert_eq!(
        mode.decided_by,
        DecidedBy::Mode {
            mode: "default".into()
        }
    );
    log.hooked("c", "hook_0", false, Some("no pushing".into()));
    let hook = log
        .tool_result("c", true, Some(reported("reject", "hook", Some("hook"))))
        .unwrap();
    assert_eq!(hook.verdict, Verdict::Denied);
    assert_eq!(
        hook.decided_by,
        DecidedBy::Hook {
            callback_id: Some("hook_0".into())
        }
    );
    assert_eq!(hook.message.as_deref(), Some("no pushing"));
    log.asked(
        "d",
        AskedHost {
            reason: Some("needs approval".into()),
            ..AskedHost::default()
        },
    );
    log.answered("d", false, Some("not today".into()), false);
    let callback = log
        .tool_result("d", true, Some(reported("reject", "user_reject", None)))
        .unwrap();
    assert_eq!(callback.decided_by, DecidedBy::Callback { failed: false });
    assert_eq!(
        callback.asked.as_ref().unwrap().reason.as_deref(),
        Some("needs approval")
    );
    assert_eq!(
        callback.to_string(),
        "Bash (d) denied by the host's callback"
    );
    let settings = log
        .tool_result("e", false, Some(reported("accept", "config", None)))
        .unwrap();
    // The explainer names a rule: the rule is told.
    assert!(matches!(settings.decided_by, DecidedBy::Rule { .. }));
    assert_eq!(log.decisions().len(), 5);
    // A result for a call never seen tells nothing.
    assert!(log.tool_result("zzz", false, None).is_none());
}

#[test]
fn without_a_report_the_host_part_or_the_rules_tell_and_failures_wait_for_the_result() {
    let mut log = log();
    log.tool_used("a", "Bash", Some("task-1"), json!({"command": "ls"}));
    log.answered("a", true, None, false);
    let a = log.tool_result("a", false, None).unwrap();
    assert_eq!((a.verdict, a.reported), (Verdict::Allowed, false));
    assert_eq!(a.agent.as_deref(), Some("task-1"));
    // A call the host was not asked about ran: the rules tell why.
    log.tool_used("b", "Read", None, json!({}));
    let b = log.tool_result("b", false, None).unwrap();
    assert!(matches!(b.decided_by, DecidedBy::Rule { .. }));
    // Failed calls: denied if the result lists them, else they ran and failed.
    log.tool_used("c", "Bash", None, json!({"command": "rm x"}));
    log.tool_used("d", "Bash", None, json!({"command": "false"}));
    assert!(log.tool_result("c", true, None).is_none());
    assert!(log.tool_result("d", true, None).is_none());
    let at_result = log.result(&["c".to_owned()]);
    let verdicts: Vec<(&str, Verdict)> = at_result
        .iter()
        .map(|d| (d.tool_use_id.as_str(), d.verdict))
        .collect();
    assert_eq!(verdicts, [("c", Verdict::Denied), ("d", Verdict::Allowed)]);
}
