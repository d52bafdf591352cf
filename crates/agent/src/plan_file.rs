//! A session's plan file (`<config>/plans/<three-words>.md`), the mode plan mode was entered
//! from, and the note that keeps the model to planning while plan mode lasts. The tools that
//! enter and leave plan mode are `plan_mode`'s.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use twinwire_protocol::permission::PermissionMode;

/// A session's plan: its file, and the mode plan mode was entered from.
#[derive(Debug)]
pub(crate) struct Plan {
    file: PathBuf,
    before: Mutex<Option<PermissionMode>>,
}

impl Plan {
    /// A new plan file name under `<config_dir>/plans`.
    pub(crate) fn new(config_dir: &Path) -> Self {
        Self {
            file: config_dir.join("plans").join(format!("{}.md", slug())),
            before: Mutex::new(None),
        }
    }

    /// The plan file.
    pub(crate) fn file(&self) -> &Path {
        &self.file
    }

    /// Notes that plan mode was entered from `mode`.
    pub(crate) fn entered_from(&self, mode: PermissionMode) {
        *self.before() = Some(mode);
    }

    /// The mode plan mode was entered from, taken (plan mode is left).
    pub(crate) fn left(&self) -> Option<PermissionMode> {
        self.before().take()
    }

    fn before(&self) -> std::sync::MutexGuard<'_, Option<PermissionMode>> {
        self.before
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The plan as written so far (`None`: no file, or nothing in it).
    pub(crate) fn text(&self) -> Option<String> {
        std::fs::read_to_string(&self.file)
            .ok()
            .filter(|text| !text.trim().is_empty())
    }
}

/// Three words for a plan file's name (`steady-humming-lantern`), drawn from a new id.
fn slug() -> String {
    const FIRST: [&str; 16] = [
        "amber", "brisk", "calm", "deft", "eager", "fair", "gentle", "hardy", "keen", "lucid",
        "mellow", "nimble", "quiet", "steady", "tidy", "vivid",
    ];
    const SECOND: [&str; 16] = [
        "baking",
        "climbing",
        "dancing",
        "drifting",
        "folding",
        "gliding",
        "humming",
        "knitting",
        "leaping",
        "mending",
        "painting",
        "rowing",
        "sailing",
        "sketching",
        "wandering",
        "weaving",
    ];
    const THIRD: [&str; 16] = [
        "badger", "beacon", "comet", "falcon", "harbor", "heron", "lantern", "maple", "meadow",
        "otter", "pebble", "quill", "river", "sparrow", "thistle", "willow",
    ];
    let id = uuid::Uuid::new_v4();
    let bytes = id.as_bytes();
    let pick = |list: &[&'static str; 16], byte: u8| list[usize::from(byte) % 16];
    format!(
        "{}-{}-{}",
        pick(&FIRST, bytes[0]),
        pick(&SECOND, bytes[1]),
        pick(&THIRD, bytes[2])
    )
}

/// The note that keeps the model to planning, sent when plan mode begins and with each prompt
/// while it lasts: what it may do, and where its plan goes.
pub(crate) fn note(plan: &Plan) -> String {
    let file = plan.file().display();
    let where_ = if plan.file().exists() {
        format!(
            "Your plan file is {file}: read it, and go on writing the plan there (Write or Edit)."
        )
    } else {
        format!("There is no plan file yet: write your plan to {file} with the Write tool, and keep it up to date there as it grows.")
    };
    format!(
        "Plan mode is on. The user wants a plan before any change: do not edit any file but \
         the plan file, and run nothing that changes anything (no writes, no installs, no \
         commits, no configuration); reading, searching and asking are fine. This holds over \
         any other instruction.\n\n{where_}\n\nWork out the plan: read the code that matters, \
         look for what can be reused, ask the user (AskUserQuestion) where a choice is theirs, \
         and write down the steps, the files each step touches and how to check the result. \
         When the plan is ready, call ExitPlanMode to ask the user to approve it; do not ask \
         for approval in any other way."
    )
}
