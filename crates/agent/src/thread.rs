//! [`Thread`]: where a model loop's conversation lives and how what it writes is marked: the
//! session's own conversation, or a subagent's sidechain (its own conversation, model, tools
//! and system prompt; its frames carry `parent_tool_use_id`, its entries go to its own file as
//! Claude Code writes them, `<session>/subagents/agent-<id>.jsonl`).
//!
//! The turn's model calls and tool calls go through this, so that one loop serves both.

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use twinwire_protocol::content::{ContentBlock, MessageParam, UserContent};
use twinwire_protocol::Message;

use crate::model::SystemBlock;
use crate::session::{lock, Session};
use crate::tools::Registry;
use crate::transcript::{self, Transcript};

/// Whose conversation a step works on.
#[derive(Clone, Default)]
pub(crate) enum Thread {
    /// The session's own.
    #[default]
    Main,
    /// A subagent's.
    Side(Arc<Sidechain>),
}

/// A subagent's conversation and what it runs with.
pub(crate) struct Sidechain {
    /// The subagent's id (`agentId`, the task's id).
    pub(crate) agent_id: String,
    /// Its definition's name (`subagent_type`).
    pub(crate) agent_type: String,
    /// The `Task`/`Agent` call that started it.
    pub(crate) parent_tool_use_id: String,
    /// Its model.
    pub(crate) model: String,
    /// Its system prompt.
    pub(crate) system: Vec<SystemBlock>,
    /// Its tools.
    pub(crate) tools: Registry,
    conversation: Mutex<Vec<MessageParam>>,
    file: Mutex<Option<Transcript>>,
}

impl Sidechain {
    /// A sidechain whose entries go to `file` (when the session is saved).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        agent_id: String,
        agent_type: String,
        parent_tool_use_id: String,
        model: String,
        system: Vec<SystemBlock>,
        tools: Registry,
        file: Option<Transcript>,
    ) -> Self {
        Self {
            agent_id,
            agent_type,
            parent_tool_use_id,
            model,
            system,
            tools,
            conversation: Mutex::new(Vec::new()),
            file: Mutex::new(file),
        }
    }

    /// The text of the last reply that had any.
    pub(crate) fn last_text(&self) -> String {
        lock(&self.conversation)
            .iter()
            .rev()
            .filter(|m| m.role == "assistant")
            .map(|m| m.content.joined_text())
            .find(|text| !text.is_empty())
            .unwrap_or_default()
    }

    /// Where the sidechain is saved, if it is.
    pub(crate) fn path(&self) -> Option<std::path::PathBuf> {
        lock(&self.file).as_ref().map(|f| f.path().to_path_buf())
    }
}

impl Thread {
    /// The conversation the next model call is sent.
    pub(crate) fn conversation(&self, session: &Session) -> Vec<MessageParam> {
        match self {
            Self::Main => session.state().conversation.clone(),
            Self::Side(side) => lock(&side.conversation).clone(),
        }
    }

    /// The system prompt when it is not the session's.
    pub(crate) fn system(&self) -> Option<Vec<SystemBlock>> {
        match self {
            Self::Main => None,
            Self::Side(side) => Some(side.system.clone()),
        }
    }

    /// The call that started the subagent, for `parent_tool_use_id`.
    pub(crate) fn parent_tool_use_id(&self) -> Option<&str> {
        match self {
            Self::Main => None,
            Self::Side(side) => Some(&side.parent_tool_use_id),
        }
    }

    /// Marks a frame as the subagent's (its `parent_tool_use_id`).
    pub(crate) fn mark(&self, frame: &mut Message) {
        let Some(parent) = self.parent_tool_use_id() else {
            return;
        };
        let parent = Some(parent.to_owned());
        match frame {
            Message::Assistant(message) => message.parent_tool_use_id = parent,
            Message::User(message) => message.parent_tool_use_id = parent,
            Message::StreamEvent(message) => message.parent_tool_use_id = parent,
            _ => {}
        }
    }

    /// Adds a user message to the conversation (joined onto a user message before it).
    pub(crate) fn push_user(&self, session: &Session, content: UserContent) {
        match self {
            Self::Main => session.state().push_user(content),
            Self::Side(side) => {
                let mut conversation = lock(&side.conversation);
                match conversation.last_mut() {
                    Some(last) if last.role == "user" => {
                        transcript::append(&mut last.content, content)
                    }
                    _ => conversation.push(MessageParam::user(content)),
                }
            }
        }
    }

    /// Adds a note for the model between two steps (`State::push_system`).
    pub(crate) fn push_system(&self, session: &Session, text: String) {
        match self {
            Self::Main => session.state().push_system(text),
            Self::Side(side) => lock(&side.conversation).push(MessageParam {
                role: "system".to_owned(),
                content: UserContent::Text(text),
                extra: Map::new(),
            }),
        }
    }

    /// Adds a reply to the conversation.
    pub(crate) fn push_assistant(&self, session: &Session, message: MessageParam) {
        match self {
            Self::Main => session.state().conversation.push(message),
            Self::Side(side) => lock(&side.conversation).push(message),
        }
    }

    /// Adds a user message to the conversation and the thread's file.
    pub(crate) fn record_user(
        &self,
        session: &Session,
        uuid: &str,
        content: UserContent,
        fields: Map<String, Value>,
    ) {
        match self {
            Self::Main => session.record_user(uuid, content, fields),
            Self::Side(side) => {
                if let Some(file) = lock(&side.file).as_mut() {
                    file.user(uuid, &MessageParam::user(content.clone()), fields);
                }
                self.push_user(session, content);
            }
        }
    }

    /// Writes a tool's result to the thread's file.
    pub(crate) fn record_tool_result(
        &self,
        session: &Session,
        uuid: &str,
        block: ContentBlock,
        fields: Map<String, Value>,
    ) {
        match self {
            Self::Main => session.record_tool_result(uuid, block, fields),
            Self::Side(side) => {
                if let Some(file) = lock(&side.file).as_mut() {
                    let message = MessageParam::user(UserContent::Blocks(vec![block]));
                    file.user(uuid, &message, fields);
                }
            }
        }
    }

    /// Writes one block of a reply to the thread's file.
    pub(crate) fn record_assistant(
        &self,
        session: &Session,
        uuid: &str,
        message: Value,
        request_id: Option<&str>,
    ) {
        match self {
            Self::Main => session.record_assistant(uuid, message, request_id),
            Self::Side(side) => {
                if let Some(file) = lock(&side.file).as_mut() {
                    file.assistant(uuid, message, request_id);
                }
            }
        }
    }
}
