//! Hook inputs of the team, task, MCP elicitation, environment and display events.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::HookInputBase;

hook_input! {
    /// Input of `TeammateIdle`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct TeammateIdleInput {
        /// The teammate.
        #[serde(default)]
        pub teammate_name: String,
        /// Its team.
        #[serde(default)]
        pub team_name: String,
    }

    /// Input of `TaskCreated`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct TaskCreatedInput {
        /// The task's id.
        #[serde(default)]
        pub task_id: String,
        /// Its subject.
        #[serde(default)]
        pub task_subject: String,
        /// Its description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_description: Option<String>,
        /// The teammate it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub teammate_name: Option<String>,
        /// The team it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub team_name: Option<String>,
    }

    /// Input of `TaskCompleted`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct TaskCompletedInput {
        /// The task's id.
        #[serde(default)]
        pub task_id: String,
        /// Its subject.
        #[serde(default)]
        pub task_subject: String,
        /// Its description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_description: Option<String>,
        /// The teammate it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub teammate_name: Option<String>,
        /// The team it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub team_name: Option<String>,
    }

    /// Input of `Elicitation`: an MCP server asks the user for input.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ElicitationInput {
        /// The server asking.
        #[serde(default)]
        pub mcp_server_name: String,
        /// What it asks.
        #[serde(default)]
        pub message: String,
        /// A form or a URL to visit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<ElicitationMode>,
        /// The URL, in `url` mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
        /// The elicitation's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// The JSON Schema of the form, in `form` mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub requested_schema: Option<Value>,
    }

    /// Input of `ElicitationResult`: the user answered an MCP elicitation.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ElicitationResultInput {
        /// The server that asked.
        #[serde(default)]
        pub mcp_server_name: String,
        /// The elicitation's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// A form or a URL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<ElicitationMode>,
        /// What the user did.
        #[serde(default)]
        pub action: ElicitationAction,
        /// The form's content, if accepted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub content: Option<Value>,
    }

    /// Input of `ConfigChange`: a settings file changed.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ConfigChangeInput {
        /// Which settings changed.
        #[serde(default)]
        pub source: ConfigChangeSource,
        /// The file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub file_path: Option<String>,
    }

    /// Input of `WorktreeCreate`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct WorktreeCreateInput {
        /// The worktree's name.
        #[serde(default)]
        pub name: String,
    }

    /// Input of `WorktreeRemove`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct WorktreeRemoveInput {
        /// The worktree's path.
        #[serde(default)]
        pub worktree_path: String,
    }

    /// Input of `InstructionsLoaded`: a memory or instructions file was loaded.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct InstructionsLoadedInput {
        /// The file.
        #[serde(default)]
        pub file_path: String,
        /// Which memory it belongs to.
        #[serde(default)]
        pub memory_type: InstructionsMemoryType,
        /// Why it was loaded.
        #[serde(default)]
        pub load_reason: InstructionsLoadReason,
        /// The globs that matched.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub globs: Option<Vec<String>>,
        /// The file whose access triggered the load.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub trigger_file_path: Option<String>,
        /// The file that included this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parent_file_path: Option<String>,
    }

    /// Input of `CwdChanged`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct CwdChangedInput {
        /// The previous working directory.
        #[serde(default)]
        pub old_cwd: String,
        /// The new one.
        #[serde(default)]
        pub new_cwd: String,
    }

    /// Input of `FileChanged`: a watched file changed.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct FileChangedInput {
        /// The file.
        #[serde(default)]
        pub file_path: String,
        /// What happened to it.
        #[serde(default)]
        pub event: FileChangeEvent,
    }

    /// Input of `DirectoryAdded`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct DirectoryAddedInput {
        /// The directory.
        #[serde(default)]
        pub directory: String,
        /// How it was added.
        #[serde(default)]
        pub source: DirectoryAddedSource,
    }

    /// Input of `PreSkillShellCommand`: a shell command written in a skill or command file
    /// (`!`command``) is about to run while the file loads. It is not a tool call: its
    /// `tool_use_id` names no call in the transcript.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreSkillShellCommandInput {
        /// The shell tool that runs it (`Bash` or `PowerShell`).
        #[serde(default)]
        pub tool_name: String,
        /// The command, arguments filled in.
        #[serde(default)]
        pub tool_input: SkillShellCommand,
        /// Identifies this command.
        #[serde(default)]
        pub tool_use_id: String,
        /// The skill or command whose text holds the command.
        #[serde(default)]
        pub command_name: String,
        /// Where that skill or command comes from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command_source: Option<String>,
        /// Who started the load.
        #[serde(default)]
        pub invoked_by: SkillInvoker,
    }

    /// Input of `MessageDisplay`: newly completed lines of a streaming assistant message.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct MessageDisplayInput {
        /// The turn's id.
        #[serde(default)]
        pub turn_id: String,
        /// The message's id.
        #[serde(default)]
        pub message_id: String,
        /// The batch's index within the message.
        #[serde(default)]
        pub index: u64,
        /// Whether this is the message's last batch.
        #[serde(rename = "final")]
        #[serde(default)]
        pub is_final: bool,
        /// The new lines.
        #[serde(default)]
        pub delta: String,
    }
}

crate::string_enum! {
    /// How an MCP elicitation collects its answer.
    pub enum ElicitationMode {
        /// A form the user fills in.
        Form = "form",
        /// A URL the user visits.
        Url = "url",
    }
}

crate::string_enum! {
    /// What the user did with an MCP elicitation.
    pub enum ElicitationAction {
        /// Answered.
        Accept = "accept",
        /// Refused.
        Decline = "decline",
        /// Dismissed.
        Cancel = "cancel",
    }
}

crate::string_enum! {
    /// Which settings a `ConfigChange` is about.
    pub enum ConfigChangeSource {
        /// User settings.
        UserSettings = "user_settings",
        /// Project settings.
        ProjectSettings = "project_settings",
        /// Local project settings.
        LocalSettings = "local_settings",
        /// Managed policy settings.
        PolicySettings = "policy_settings",
        /// Skills.
        Skills = "skills",
    }
}

crate::string_enum! {
    /// Which memory an instructions file belongs to.
    pub enum InstructionsMemoryType {
        /// The user's.
        User = "User",
        /// The project's.
        Project = "Project",
        /// The local project's.
        Local = "Local",
        /// Managed.
        Managed = "Managed",
    }
}

crate::string_enum! {
    /// Why an instructions file was loaded.
    pub enum InstructionsLoadReason {
        /// At session start.
        SessionStart = "session_start",
        /// Found while walking into a subdirectory.
        NestedTraversal = "nested_traversal",
        /// A path glob matched.
        PathGlobMatch = "path_glob_match",
        /// Included by another file.
        Include = "include",
        /// Reloaded after compaction.
        Compact = "compact",
    }
}

crate::string_enum! {
    /// What happened to a watched file.
    pub enum FileChangeEvent {
        /// It changed.
        Change = "change",
        /// It appeared.
        Add = "add",
        /// It was deleted.
        Unlink = "unlink",
    }
}

crate::string_enum! {
    /// How a directory was added to the session.
    pub enum DirectoryAddedSource {
        /// `/add-dir`.
        SlashCommand = "slash_command",
        /// A repository root was registered.
        RegisterRepoRoot = "register_repo_root",
    }
}

default_value! {
    ElicitationAction => Cancel,
    ConfigChangeSource => UserSettings,
    InstructionsMemoryType => Project,
    InstructionsLoadReason => SessionStart,
    FileChangeEvent => Change,
    DirectoryAddedSource => SlashCommand,
}
/// The command of a [`PreSkillShellCommandInput`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SkillShellCommand {
    /// The command as it would run.
    #[serde(default)]
    pub command: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Who started loading the skill or command of a [`PreSkillShellCommandInput`].
    pub enum SkillInvoker {
        /// Typed by the user, or sent by an SDK host.
        User = "user",
        /// The Skill tool, or a turn Claude scheduled.
        Claude = "claude",
        /// Anything else (a subagent's preload, a channel message) or not known.
        OtherSource = "other",
    }
}

default_value!(SkillInvoker => OtherSource);
