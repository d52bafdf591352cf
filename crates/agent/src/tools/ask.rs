//! `AskUserQuestion`: questions for the user, answered through the host, as Claude Code asks
//! them: the call goes to the host's `can_use_tool`, whose answer carries the questions'
//! answers in its updated input (`answers`, question → label). When the permission step
//! already asked the host, the answers are in the input; otherwise the tool asks it.

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::control::CanUseToolRequest;
use twinwire_protocol::permission::PermissionResult;

use super::{schema, Tool, ToolContext, ToolOutput};

/// The `AskUserQuestion` tool.
pub struct AskUserQuestion;

/// What Claude Code says of a question with fewer than two options, before the issue itself.
const ONE_OPTION: &str = "This call included a question with fewer than 2 options, so it was \
rejected and the person never saw it. A question with a single option has no decision in it. \
Do not retry this call and do not invent a filler second option. Instead, state the one path \
you were going to offer as the approach you are taking, then continue with the task. If this \
call also contained questions with 2 to 4 options (each with distinct labels), you may re-ask \
those questions alone in a new call. Ask a question only when the person has at least two \
genuinely distinct choices.";

impl Tool for AskUserQuestion {
    fn name(&self) -> &str {
        "AskUserQuestion"
    }

    fn description(&self) -> String {
        "Asks the user one to four questions while you work, each with two to four options, \
         and gives back the answers they chose.

When to ask:
- A choice that is truly the user's: a preference, a trade-off only they can weigh, a \
requirement that is unclear in a way that changes what you build.
- Before work that would be costly to redo if you guessed wrong.
Do not ask what you can find out yourself by reading the project, and do not ask for \
permission to go on with a plan: say what you will do and do it, or stop and explain.

How to ask:
- Put each question plainly, ending with a question mark, with a very short header \
(twelve characters at most) that names its subject.
- Give two to four options that really differ; each has a short label and a description of \
what choosing it means. The user can always type an answer of their own, so do not add an \
\"Other\" option.
- If you recommend one option, put it first and add \"(Recommended)\" to its label.
- Set multiSelect when several options can be chosen together.
- An option may carry a preview: a short mockup, a snippet of code or a comparison shown \
while the user looks at it. Keep previews small and plain text or Markdown.

What comes back:
- The answers, question by question, and any notes the user added. Carry on with the work \
in their light; do not ask the same question again.
- When the user declines to answer, the call comes back refused: go on with your best \
judgment, and say which assumption you made.

Examples of good questions: which of two libraries a project should adopt when both are \
reasonable; whether a change should keep an old interface working; which of several \
failing tests matters most to fix first. Examples of questions not to ask: whether to \
continue, whether a plan looks good, anything the code itself answers."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::ask_user_question().json()
    }

    fn asks_the_user(&self) -> bool {
        true
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::ask_user_question()
            .check("AskUserQuestion", input)
            .map_err(|err| {
                let one_option = input["questions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|q| q["options"].as_array().is_some_and(|o| o.len() < 2));
                match (one_option, err.strip_prefix("InputValidationError: ")) {
                    (true, Some(rest)) => format!("InputValidationError: {ONE_OPTION}\n\n{rest}"),
                    _ => err,
                }
            })
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let mut input = input;
            if !input["answers"].is_object() {
                let Some(peer) = &cx.peer else {
                    return ToolOutput::failure("No one can be asked: the user is not connected.");
                };
                let request = CanUseToolRequest {
                    tool_name: "AskUserQuestion".to_owned(),
                    input: input.clone(),
                    tool_use_id: Some(cx.tool_use_id.clone()),
                    ..CanUseToolRequest::default()
                };
                match peer.can_use_tool(request).await {
                    Ok(PermissionResult::Allow(allow)) => {
                        if let Some(updated) = allow.updated_input {
                            input = updated;
                        }
                    }
                    Ok(PermissionResult::Deny(no)) => {
                        return ToolOutput::failure(if no.message.is_empty() {
                            "The user declined to answer.".to_owned()
                        } else {
                            no.message
                        })
                    }
                    Ok(_) | Err(_) => {
                        return ToolOutput::failure("The user could not be asked.");
                    }
                }
            }
            let answers = input["answers"].as_object().cloned().unwrap_or_default();
            let said: Vec<String> = input["questions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|q| {
                    let question = q["question"].as_str()?;
                    let answer = answers.get(question)?.as_str()?;
                    Some(format!("\"{question}\"=\"{answer}\""))
                })
                .collect();
            ToolOutput::success(
                format!(
                    "Your questions have been answered: {}. You can now continue with these \
                     answers in mind.",
                    said.join(", ")
                ),
                json!({"questions": input["questions"], "answers": answers}),
            )
        })
    }
}
