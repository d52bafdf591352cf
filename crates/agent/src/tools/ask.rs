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
        "Asks the user one to four questions, each with two to four options to choose from \
         (the user may always write an answer of their own), and gives back their answers. \
         Use it when a choice is truly the user's: their preference, an unclear requirement, \
         a decision between approaches. Put the option you recommend first and say so in its \
         label. Do not use it to ask whether a plan is ready; do not offer an \"Other\" \
         option. Set multiSelect when several options may be chosen together."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::ask_user_question().json()
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
