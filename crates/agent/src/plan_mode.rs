//! Plan mode entered and left by the model: the `EnterPlanMode` and `ExitPlanMode` tools (the
//! plan file and the plan-mode note are `plan_file`'s).
//!
//! As in Claude Code: `EnterPlanMode` switches the session to `plan` (remembering the mode it
//! leaves) and tells the model where its plan file is (`<config>/plans/<slug>.md`, one per
//! session); in plan mode the plan file is the one file edited without asking. `ExitPlanMode`
//! is refused outside plan mode; inside it, the host is always asked (whatever the mode, a
//! plan is the user's to approve), with the plan file's text and path in the input it sees.
//! Approved, the session goes back to the mode it left, and the model gets the plan as
//! approved (the host's edited text, written back to the file, when it changed it). Both tools
//! are offered when the host can be asked (`--permission-prompt-tool stdio`), and to the main
//! session only.

use std::path::Path;
use std::sync::Weak;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire::agent::frames;
use twinwire_protocol::permission::PermissionMode;

use crate::plan_file::note;
use crate::session::Session;
use crate::tools::{Tool, ToolContext, ToolOutput};

/// The tools' names.
pub const ENTER: &str = "EnterPlanMode";
pub const EXIT: &str = "ExitPlanMode";

/// What `EnterPlanMode` tells the model (Claude Code's result, which models act on).
const ENTERED: &str = "Entered plan mode. You should now focus on exploring the codebase and \
designing an implementation approach.\n\nIn plan mode, you should:\n1. Thoroughly explore the \
codebase to understand existing patterns\n2. Identify similar features and architectural \
approaches\n3. Consider multiple approaches and their trade-offs\n4. Use AskUserQuestion if you \
need to clarify the approach\n5. Design a concrete implementation strategy\n6. When ready, use \
ExitPlanMode to present your plan for approval\n\nRemember: DO NOT write or edit any files yet. \
This is a read-only exploration and planning phase.";

/// `ExitPlanMode` outside plan mode.
const NOT_IN_PLAN_MODE: &str = "You are not in plan mode. To enter plan mode, call the \
EnterPlanMode tool first. If your plan was already approved, continue with implementation.";

/// What the model is told of `EnterPlanMode`.
const ENTER_DESCRIPTION: &str = "Switches the session into plan mode, where you work out an \
approach with the user before any code changes. In plan mode you read, search and ask; the \
only file you write is the plan file you are given; when the plan is ready you present it with \
ExitPlanMode, and the work starts once the user approves it.

## When to plan first

Plan first when the task is about to change code and any of these holds:

1. There is a real choice of design: two or more reasonable ways to build it, with different \
costs (where state lives, which library, sync or async, a new module or an existing one).
2. The change reaches across the code base: several files or layers, a data format, a public \
interface, a migration.
3. The request leaves room for interpretation: what \"faster\", \"cleaner\" or \"support X\" \
means has to be settled before it can be built.
4. The existing code must be understood first: you do not yet know where the change belongs \
or what it would break.
5. The user would want a say: the change affects behaviour they rely on, or it is large \
enough that redoing it would be costly.

When in doubt on a task of some size, plan: agreeing on an approach costs little, and work \
built on a wrong guess costs a lot to undo.

## When not to

- A small fix whose shape is obvious: a typo, a wrong constant, a missing check on one line.
- A change the user has spelled out in detail (which file, which function, what to write).
- Questions, explanations and research that change nothing: answer them directly.
- Adding a log line, renaming a local variable, running the tests.

## Examples

Plan first:
- \"Let users sign in with their GitHub account\": where sessions live, which flow, what \
changes in the user model, how it is tested.
- \"The import is too slow\": measure before choosing between batching, caching and a new \
index.
- \"Add a dark theme\": a theme system touches every screen; the user should choose how \
colours are defined.
- \"Make the export support CSV\": which columns, which encoding, how it is offered in the \
interface.

Go straight to work:
- \"Fix the spelling of 'recieve' in the README\".
- \"Print the request id in this error message\".
- \"Which module parses the configuration?\" (a question: answer it).

## What happens

Entering plan mode needs nothing from you but the call (it takes no arguments). You are then \
told where the plan file is. Explore with the reading tools, ask the user with \
AskUserQuestion where a decision is theirs, write the plan to the plan file (the steps, the \
files each touches, how the result will be checked), and call ExitPlanMode to ask for approval. \
Until then, make no other changes.";

/// What the model is told of `ExitPlanMode`.
const EXIT_DESCRIPTION: &str = "Presents your plan to the user for approval and, once they \
approve it, leaves plan mode so that the work can start.

## How it works
- Call it in plan mode, after you have written the plan to the plan file named when plan mode \
began. The plan is read from that file: do not pass it as an argument.
- The user sees the plan and approves it, changes it, or declines. Approved (perhaps as they \
changed it), you get the plan back and may start on the changes it describes. Declined, you \
stay in plan mode: revise the plan in the light of what they said and call this tool again.

## When to use it
- Only to ask for approval of a plan of changes to make. Research, reading and questions that \
lead to no change do not need it: answer directly.
- Only when the plan is ready: its open questions settled (ask them first with \
AskUserQuestion), its steps concrete enough to follow.
- Not to ask \"is this plan all right?\" in plain text or through AskUserQuestion: this tool \
is how a plan is approved.

## Examples
- The user asked for a new export format; you have read the exporter, written the steps and \
the files they touch to the plan file: call this tool.
- The user asked how the cache is invalidated: answer, no plan is needed.
- You have two designs and do not know which the user prefers: ask with AskUserQuestion \
first, then finish the plan and call this tool.";

/// Adds the plan-mode note to the conversation when the session is in plan mode (after a
/// prompt, so that a session started in plan mode, or switched to it, plans).
pub(crate) fn remind(session: &Session) {
    let mut state = session.state();
    if state.mode == PermissionMode::Plan {
        state.push_system(note(&session.plan));
    }
}

/// `EnterPlanMode`.
pub(crate) struct EnterPlanMode {
    session: Weak<Session>,
}

impl EnterPlanMode {
    pub(crate) fn new(session: Weak<Session>) -> Self {
        Self { session }
    }
}

impl Tool for EnterPlanMode {
    fn name(&self) -> &str {
        ENTER
    }

    fn description(&self) -> String {
        ENTER_DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        crate::tools::schema::enter_plan_mode().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        crate::tools::schema::enter_plan_mode().check(ENTER, input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, _input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let session = self.session.clone();
        Box::pin(async move {
            let Some(session) = session.upgrade() else {
                return ToolOutput::failure("The session has ended.");
            };
            let (changed, session_id) = {
                let mut state = session.state();
                let changed = state.mode != PermissionMode::Plan;
                if changed {
                    session.plan.entered_from(state.mode.clone());
                    state.mode = PermissionMode::Plan;
                }
                (changed, state.session_id.clone())
            };
            if let (true, Some(peer)) = (changed, &cx.peer) {
                let _ = peer.emit(&frames::permission_mode(&session_id, PermissionMode::Plan));
            }
            let mut output = ToolOutput::success(
                ENTERED,
                json!({"message": ENTERED.split("\n\n").next().unwrap_or(ENTERED)}),
            );
            output.notes.push(note(&session.plan));
            output
        })
    }
}

/// `ExitPlanMode`.
pub(crate) struct ExitPlanMode {
    session: Weak<Session>,
}

impl ExitPlanMode {
    pub(crate) fn new(session: Weak<Session>) -> Self {
        Self { session }
    }
}

impl Tool for ExitPlanMode {
    fn name(&self) -> &str {
        EXIT
    }

    fn description(&self) -> String {
        EXIT_DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "allowedPrompts": {
                    "description": "No longer used.",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "tool": {"description": "The tool.", "type": "string", "enum": ["Bash"]},
                            "prompt": {"description": "What it would be used for.", "type": "string"}
                        },
                        "required": ["tool", "prompt"],
                        "additionalProperties": false
                    }
                }
            },
            "additionalProperties": {}
        })
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        if input.is_object() {
            Ok(input.clone())
        } else {
            Err(format!(
                "InputValidationError: {EXIT} failed due to the following issue:\nThe input \
                 must be an object"
            ))
        }
    }

    fn validate(&self, _input: &Value, _cx: &ToolContext) -> Option<ToolOutput> {
        let session = self.session.upgrade()?;
        let mode = session.state().mode.clone();
        (mode != PermissionMode::Plan).then(|| ToolOutput::error(NOT_IN_PLAN_MODE))
    }

    fn asks_the_user(&self) -> bool {
        true
    }

    fn prepare(&self, input: Value, _cx: &ToolContext) -> Value {
        let Some(session) = self.session.upgrade() else {
            return input;
        };
        match (session.plan.text(), input) {
            (Some(plan), Value::Object(mut fields)) if !fields.contains_key("plan") => {
                fields.insert("plan".into(), json!(plan));
                fields.insert(
                    "planFilePath".into(),
                    json!(session.plan.file().display().to_string()),
                );
                Value::Object(fields)
            }
            (_, input) => input,
        }
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let session = self.session.clone();
        Box::pin(async move {
            let Some(session) = session.upgrade() else {
                return ToolOutput::failure("The session has ended.");
            };
            let written = session.plan.text();
            let given = input
                .get("plan")
                .and_then(Value::as_str)
                .filter(|plan| !plan.trim().is_empty())
                .map(str::to_owned);
            // The host's answer may carry the plan as the user changed it: that is the plan.
            let edited = given
                .as_ref()
                .is_some_and(|given| Some(given) != written.as_ref());
            let plan = given.or(written);
            let file = session.plan.file().to_owned();
            let mut saved = plan.is_some();
            if let (true, Some(plan)) = (edited, &plan) {
                let _ = std::fs::create_dir_all(file.parent().unwrap_or(Path::new(".")));
                saved = std::fs::write(&file, plan).is_ok();
            }
            let (mode, session_id) = {
                let mut state = session.state();
                let before = session.plan.left();
                state.mode = match before {
                    Some(PermissionMode::BypassPermissions) if !session.config.allow_bypass => {
                        PermissionMode::Default
                    }
                    Some(PermissionMode::Plan) | None => PermissionMode::Default,
                    Some(mode) => mode,
                };
                (state.mode.clone(), state.session_id.clone())
            };
            if let Some(peer) = &cx.peer {
                let _ = peer.emit(&frames::permission_mode(&session_id, mode));
            }
            let mut exited = "## Exited Plan Mode\n\nYou have exited plan mode. You can now make \
                              edits, run tools, and take actions."
                .to_owned();
            let Some(plan) = plan else {
                let mut output = ToolOutput::success(
                    "User has approved exiting plan mode. You can now proceed.",
                    json!({"plan": null, "isAgent": false}),
                );
                output.notes.push(exited);
                return output;
            };
            let file_text = file.display().to_string();
            exited.push_str(&format!(
                " The plan file is located at {file_text} if you need to reference it."
            ));
            let saved_note = if saved {
                format!(
                    "\n\nYour plan has been saved to: {file_text}\nYou can refer back to it if \
                     needed during implementation."
                )
            } else {
                "\n\nThe edit could not be saved to the plan file, so work from the text below."
                    .to_owned()
            };
            let heading = if edited {
                "Approved Plan (edited by user)"
            } else {
                "Approved Plan"
            };
            let mut output = ToolOutput::success(
                format!(
                    "User has approved your plan. You can now start coding. Start with updating \
                     your todo list if applicable{saved_note}\n\n## {heading}:\n{plan}"
                ),
                json!({"plan": plan, "isAgent": false, "filePath": file_text,
                       "planWasEdited": edited}),
            );
            output.notes.push(exited);
            output
        })
    }
}
