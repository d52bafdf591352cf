//! The plan-mode tools: `EnterPlanMode` and `ExitPlanMode`, asked of the host.

use serde_json::json;

use crate::case::{case, filled, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("EnterPlanMode", "enter_then_exit")
            .quick()
            .file("src.txt", "one\n")
            .step("EnterPlanMode", json!({}))
            .step(
                "Write",
                json!({"file_path": "{work}/new.txt", "content": "x\n"}),
            )
            .step("ExitPlanMode", json!({}))
            .step("EnterPlanMode", json!({}))
            .parallel(vec![filled(
                "Write",
                json!({"content": "# The plan\n\n1. Do it\n"}),
                "file_path",
                r"(/\S+/\.claude/plans/[a-z-]+\.md)",
            )])
            .step("ExitPlanMode", json!({}))
            .step(
                "Write",
                json!({"file_path": "{work}/after.txt", "content": "y\n"}),
            )
            .step("ExitPlanMode", json!({})),
        case("ExitPlanMode", "outside_plan_mode")
            .step("ExitPlanMode", json!({}))
            .step("ExitPlanMode", json!({"plan": "do things"}))
            .step("EnterPlanMode", json!({"reason": "x"})),
    ]
}
