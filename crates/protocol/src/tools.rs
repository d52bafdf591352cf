//! Typed inputs of Claude Code's built-in tools, for permission callbacks and hooks:
//! `ToolInput::parse(name, &input)` gives `ToolInput::Bash(b)` with `b.command`, and so on for
//! every tool whose input schema the official TypeScript SDK publishes (`sdk-tools.d.ts`), plus
//! the older tools the recorded CLIs use (`MultiEdit`, `LS`, `BashOutput`, `KillShell`).
//!
//! Reading is lossless: fields a struct does not type stay in its `extra`, and an input that
//! does not fit its struct (a required field missing, a field of another type) or of a tool
//! not listed here comes back as [`ToolInput::Other`] with its JSON, never dropped.
//! [`ToolInput::to_value`] gives back the input as read. The peers suite checks [`TYPED_TOOLS`]
//! against the TypeScript SDK's schema file: every interface and field typed, or listed in
//! [`UNTYPED_TOOLS`] with the reason.

mod agents;
mod files;
mod mcp;
mod planning;
mod platform;
mod shell;
mod web;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

pub use agents::{
    AgentInput, ReportFindingsInput, SendFeedbackInput, TaskCreateInput, TaskGetInput,
    TaskListInput, TaskUpdateInput, TodoWriteInput, WorkflowInput,
};
pub use files::{
    FileEditInput, FileReadInput, FileWriteInput, GlobInput, GrepInput, LsInput, MultiEditInput,
    NotebookEditInput,
};
pub use mcp::{
    ListMcpResourcesInput, McpInput, ReadMcpResourceDirInput, ReadMcpResourceInput,
    RefreshMcpToolsInput,
};
pub use planning::{
    AskUserQuestionInput, EnterPlanModeInput, EnterWorktreeInput, ExitPlanModeInput,
    ExitWorktreeInput, ProposeGoalInput, ProposeSkillsInput,
};
pub use platform::{
    ArtifactInput, ClaudeDesignInput, CronCreateInput, CronDeleteInput, CronListInput,
    OfferChromeSetupInput, ProjectsInput, PushNotificationInput, ReadNotificationsInput,
    RemoteTriggerInput, ScheduleWakeupInput, ShowOnboardingRolePickerInput,
};
pub use shell::{BashInput, BashOutputInput, KillShellInput, MonitorInput, TaskStopInput};
pub use web::{WebFetchInput, WebSearchInput};

/// A built-in tool's input, typed when its schema is known.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// One per tool call, matched by value (`ToolInput::Bash(bash) => bash.command`): boxing the
// larger inputs would save little and cost every match a dereference.
#[allow(clippy::large_enum_variant)]
pub enum ToolInput {
    /// `Read`.
    Read(FileReadInput),
    /// `Write`.
    Write(FileWriteInput),
    /// `Edit`.
    Edit(FileEditInput),
    /// `MultiEdit`.
    MultiEdit(MultiEditInput),
    /// `Glob`.
    Glob(GlobInput),
    /// `Grep`.
    Grep(GrepInput),
    /// `NotebookEdit`.
    NotebookEdit(NotebookEditInput),
    /// `LS`.
    Ls(LsInput),
    /// `Bash`.
    Bash(BashInput),
    /// `BashOutput`.
    BashOutput(BashOutputInput),
    /// `KillShell` (also `KillBash`, read as this).
    KillShell(KillShellInput),
    /// `TaskStop`.
    TaskStop(TaskStopInput),
    /// `Monitor`.
    Monitor(MonitorInput),
    /// `Agent` (also `Task`, read as this).
    Agent(AgentInput),
    /// `TodoWrite`.
    TodoWrite(TodoWriteInput),
    /// `TaskCreate`.
    TaskCreate(TaskCreateInput),
    /// `TaskGet`.
    TaskGet(TaskGetInput),
    /// `TaskUpdate`.
    TaskUpdate(TaskUpdateInput),
    /// `TaskList`.
    TaskList(TaskListInput),
    /// `Workflow`.
    Workflow(WorkflowInput),
    /// `ReportFindings`.
    ReportFindings(ReportFindingsInput),
    /// `SendFeedback`.
    SendFeedback(SendFeedbackInput),
    /// `ExitPlanMode`.
    ExitPlanMode(ExitPlanModeInput),
    /// `EnterPlanMode`.
    EnterPlanMode(EnterPlanModeInput),
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionInput),
    /// `SetGoal`.
    SetGoal(ProposeGoalInput),
    /// `propose_skills`.
    ProposeSkills(ProposeSkillsInput),
    /// `EnterWorktree`.
    EnterWorktree(EnterWorktreeInput),
    /// `ExitWorktree`.
    ExitWorktree(ExitWorktreeInput),
    /// `WebFetch`.
    WebFetch(WebFetchInput),
    /// `WebSearch`.
    WebSearch(WebSearchInput),
    /// `ListMcpResourcesTool`.
    ListMcpResourcesTool(ListMcpResourcesInput),
    /// `ReadMcpResourceTool`.
    ReadMcpResourceTool(ReadMcpResourceInput),
    /// `ReadMcpResourceDirTool`.
    ReadMcpResourceDirTool(ReadMcpResourceDirInput),
    /// `RefreshMcpTools`.
    RefreshMcpTools(RefreshMcpToolsInput),
    /// `CronCreate`.
    CronCreate(CronCreateInput),
    /// `CronDelete`.
    CronDelete(CronDeleteInput),
    /// `CronList`.
    CronList(CronListInput),
    /// `ScheduleWakeup`.
    ScheduleWakeup(ScheduleWakeupInput),
    /// `RemoteTrigger`.
    RemoteTrigger(RemoteTriggerInput),
    /// `ShowOnboardingRolePicker`.
    ShowOnboardingRolePicker(ShowOnboardingRolePickerInput),
    /// `OfferChromeSetup`.
    OfferChromeSetup(OfferChromeSetupInput),
    /// `ReadNotifications`.
    ReadNotifications(ReadNotificationsInput),
    /// `Artifact`.
    Artifact(ArtifactInput),
    /// `PushNotification`.
    PushNotification(PushNotificationInput),
    /// `ClaudeDesign`.
    ClaudeDesign(ClaudeDesignInput),
    /// `Projects`.
    Projects(ProjectsInput),
    /// A tool of an MCP server (`mcp__server__tool`): its arguments.
    Mcp {
        /// The tool's full name.
        name: String,
        /// Its arguments.
        input: McpInput,
    },
    /// Any other tool, or an input that does not fit its tool's struct: as read.
    Other {
        /// The tool's name.
        name: String,
        /// The input.
        input: Value,
    },
}

/// Reads `input` as `T`, or `None` when it does not fit.
fn typed<T: DeserializeOwned>(input: &Value) -> Option<T> {
    T::deserialize(input).ok()
}

fn value<T: Serialize>(input: &T) -> Value {
    serde_json::to_value(input).unwrap_or(Value::Null)
}

impl ToolInput {
    /// Reads the input of a call of `name`.
    pub fn parse(name: &str, input: &Value) -> ToolInput {
        let parsed = match name {
            "Read" => typed(input).map(ToolInput::Read),
            "Write" => typed(input).map(ToolInput::Write),
            "Edit" => typed(input).map(ToolInput::Edit),
            "MultiEdit" => typed(input).map(ToolInput::MultiEdit),
            "Glob" => typed(input).map(ToolInput::Glob),
            "Grep" => typed(input).map(ToolInput::Grep),
            "NotebookEdit" => typed(input).map(ToolInput::NotebookEdit),
            "LS" => typed(input).map(ToolInput::Ls),
            "Bash" => typed(input).map(ToolInput::Bash),
            "BashOutput" => typed(input).map(ToolInput::BashOutput),
            "KillShell" | "KillBash" => typed(input).map(ToolInput::KillShell),
            "TaskStop" => typed(input).map(ToolInput::TaskStop),
            "Monitor" => typed(input).map(ToolInput::Monitor),
            "Agent" | "Task" => typed(input).map(ToolInput::Agent),
            "TodoWrite" => typed(input).map(ToolInput::TodoWrite),
            "TaskCreate" => typed(input).map(ToolInput::TaskCreate),
            "TaskGet" => typed(input).map(ToolInput::TaskGet),
            "TaskUpdate" => typed(input).map(ToolInput::TaskUpdate),
            "TaskList" => typed(input).map(ToolInput::TaskList),
            "Workflow" => typed(input).map(ToolInput::Workflow),
            "ReportFindings" => typed(input).map(ToolInput::ReportFindings),
            "SendFeedback" => typed(input).map(ToolInput::SendFeedback),
            "ExitPlanMode" => typed(input).map(ToolInput::ExitPlanMode),
            "EnterPlanMode" => typed(input).map(ToolInput::EnterPlanMode),
            "AskUserQuestion" => typed(input).map(ToolInput::AskUserQuestion),
            "SetGoal" => typed(input).map(ToolInput::SetGoal),
            "propose_skills" => typed(input).map(ToolInput::ProposeSkills),
            "EnterWorktree" => typed(input).map(ToolInput::EnterWorktree),
            "ExitWorktree" => typed(input).map(ToolInput::ExitWorktree),
            "WebFetch" => typed(input).map(ToolInput::WebFetch),
            "WebSearch" => typed(input).map(ToolInput::WebSearch),
            "ListMcpResourcesTool" => typed(input).map(ToolInput::ListMcpResourcesTool),
            "ReadMcpResourceTool" => typed(input).map(ToolInput::ReadMcpResourceTool),
            "ReadMcpResourceDirTool" => typed(input).map(ToolInput::ReadMcpResourceDirTool),
            "RefreshMcpTools" => typed(input).map(ToolInput::RefreshMcpTools),
            "CronCreate" => typed(input).map(ToolInput::CronCreate),
            "CronDelete" => typed(input).map(ToolInput::CronDelete),
            "CronList" => typed(input).map(ToolInput::CronList),
            "ScheduleWakeup" => typed(input).map(ToolInput::ScheduleWakeup),
            "RemoteTrigger" => typed(input).map(ToolInput::RemoteTrigger),
            "ShowOnboardingRolePicker" => typed(input).map(ToolInput::ShowOnboardingRolePicker),
            "OfferChromeSetup" => typed(input).map(ToolInput::OfferChromeSetup),
            "ReadNotifications" => typed(input).map(ToolInput::ReadNotifications),
            "Artifact" => typed(input).map(ToolInput::Artifact),
            "PushNotification" => typed(input).map(ToolInput::PushNotification),
            "ClaudeDesign" => typed(input).map(ToolInput::ClaudeDesign),
            "Projects" => typed(input).map(ToolInput::Projects),
            _ if name.starts_with("mcp__") => typed(input).map(|input| ToolInput::Mcp {
                name: name.to_owned(),
                input,
            }),
            _ => None,
        };
        parsed.unwrap_or_else(|| ToolInput::Other {
            name: name.to_owned(),
            input: input.clone(),
        })
    }

    /// The tool's name (for a variant read from an older name, the current one).
    pub fn name(&self) -> &str {
        match self {
            ToolInput::Read(_) => "Read",
            ToolInput::Write(_) => "Write",
            ToolInput::Edit(_) => "Edit",
            ToolInput::MultiEdit(_) => "MultiEdit",
            ToolInput::Glob(_) => "Glob",
            ToolInput::Grep(_) => "Grep",
            ToolInput::NotebookEdit(_) => "NotebookEdit",
            ToolInput::Ls(_) => "LS",
            ToolInput::Bash(_) => "Bash",
            ToolInput::BashOutput(_) => "BashOutput",
            ToolInput::KillShell(_) => "KillShell",
            ToolInput::TaskStop(_) => "TaskStop",
            ToolInput::Monitor(_) => "Monitor",
            ToolInput::Agent(_) => "Agent",
            ToolInput::TodoWrite(_) => "TodoWrite",
            ToolInput::TaskCreate(_) => "TaskCreate",
            ToolInput::TaskGet(_) => "TaskGet",
            ToolInput::TaskUpdate(_) => "TaskUpdate",
            ToolInput::TaskList(_) => "TaskList",
            ToolInput::Workflow(_) => "Workflow",
            ToolInput::ReportFindings(_) => "ReportFindings",
            ToolInput::SendFeedback(_) => "SendFeedback",
            ToolInput::ExitPlanMode(_) => "ExitPlanMode",
            ToolInput::EnterPlanMode(_) => "EnterPlanMode",
            ToolInput::AskUserQuestion(_) => "AskUserQuestion",
            ToolInput::SetGoal(_) => "SetGoal",
            ToolInput::ProposeSkills(_) => "propose_skills",
            ToolInput::EnterWorktree(_) => "EnterWorktree",
            ToolInput::ExitWorktree(_) => "ExitWorktree",
            ToolInput::WebFetch(_) => "WebFetch",
            ToolInput::WebSearch(_) => "WebSearch",
            ToolInput::ListMcpResourcesTool(_) => "ListMcpResourcesTool",
            ToolInput::ReadMcpResourceTool(_) => "ReadMcpResourceTool",
            ToolInput::ReadMcpResourceDirTool(_) => "ReadMcpResourceDirTool",
            ToolInput::RefreshMcpTools(_) => "RefreshMcpTools",
            ToolInput::CronCreate(_) => "CronCreate",
            ToolInput::CronDelete(_) => "CronDelete",
            ToolInput::CronList(_) => "CronList",
            ToolInput::ScheduleWakeup(_) => "ScheduleWakeup",
            ToolInput::RemoteTrigger(_) => "RemoteTrigger",
            ToolInput::ShowOnboardingRolePicker(_) => "ShowOnboardingRolePicker",
            ToolInput::OfferChromeSetup(_) => "OfferChromeSetup",
            ToolInput::ReadNotifications(_) => "ReadNotifications",
            ToolInput::Artifact(_) => "Artifact",
            ToolInput::PushNotification(_) => "PushNotification",
            ToolInput::ClaudeDesign(_) => "ClaudeDesign",
            ToolInput::Projects(_) => "Projects",
            ToolInput::Mcp { name, .. } | ToolInput::Other { name, .. } => name,
        }
    }

    /// The input as JSON, as it was read.
    pub fn to_value(&self) -> Value {
        match self {
            ToolInput::Read(input) => value(input),
            ToolInput::Write(input) => value(input),
            ToolInput::Edit(input) => value(input),
            ToolInput::MultiEdit(input) => value(input),
            ToolInput::Glob(input) => value(input),
            ToolInput::Grep(input) => value(input),
            ToolInput::NotebookEdit(input) => value(input),
            ToolInput::Ls(input) => value(input),
            ToolInput::Bash(input) => value(input),
            ToolInput::BashOutput(input) => value(input),
            ToolInput::KillShell(input) => value(input),
            ToolInput::TaskStop(input) => value(input),
            ToolInput::Monitor(input) => value(input),
            ToolInput::Agent(input) => value(input),
            ToolInput::TodoWrite(input) => value(input),
            ToolInput::TaskCreate(input) => value(input),
            ToolInput::TaskGet(input) => value(input),
            ToolInput::TaskUpdate(input) => value(input),
            ToolInput::TaskList(input) => value(input),
            ToolInput::Workflow(input) => value(input),
            ToolInput::ReportFindings(input) => value(input),
            ToolInput::SendFeedback(input) => value(input),
            ToolInput::ExitPlanMode(input) => value(input),
            ToolInput::EnterPlanMode(input) => value(input),
            ToolInput::AskUserQuestion(input) => value(input),
            ToolInput::SetGoal(input) => value(input),
            ToolInput::ProposeSkills(input) => value(input),
            ToolInput::EnterWorktree(input) => value(input),
            ToolInput::ExitWorktree(input) => value(input),
            ToolInput::WebFetch(input) => value(input),
            ToolInput::WebSearch(input) => value(input),
            ToolInput::ListMcpResourcesTool(input) => value(input),
            ToolInput::ReadMcpResourceTool(input) => value(input),
            ToolInput::ReadMcpResourceDirTool(input) => value(input),
            ToolInput::RefreshMcpTools(input) => value(input),
            ToolInput::CronCreate(input) => value(input),
            ToolInput::CronDelete(input) => value(input),
            ToolInput::CronList(input) => value(input),
            ToolInput::ScheduleWakeup(input) => value(input),
            ToolInput::RemoteTrigger(input) => value(input),
            ToolInput::ShowOnboardingRolePicker(input) => value(input),
            ToolInput::OfferChromeSetup(input) => value(input),
            ToolInput::ReadNotifications(input) => value(input),
            ToolInput::Artifact(input) => value(input),
            ToolInput::PushNotification(input) => value(input),
            ToolInput::ClaudeDesign(input) => value(input),
            ToolInput::Projects(input) => value(input),
            ToolInput::Mcp { input, .. } => value(input),
            ToolInput::Other { input, .. } => input.clone(),
        }
    }

    /// Whether the input was read into a struct of its tool.
    pub fn is_typed(&self) -> bool {
        !matches!(self, ToolInput::Other { .. })
    }
}

/// Every typed tool: its names, the TypeScript SDK's interface (`sdk-tools.d.ts`, or none
/// for the older tools), and the fields its struct types.
pub const TYPED_TOOLS: &[(&[&str], &str, &[&str])] = &[
    (
        &["Read"],
        "FileReadInput",
        &["file_path", "offset", "limit", "pages", "allow_large"],
    ),
    (&["Write"], "FileWriteInput", &["file_path", "content"]),
    (
        &["Edit"],
        "FileEditInput",
        &["file_path", "old_string", "new_string", "replace_all"],
    ),
    (&["MultiEdit"], "", &["file_path", "edits"]),
    (&["Glob"], "GlobInput", &["pattern", "path"]),
    (
        &["Grep"],
        "GrepInput",
        &[
            "pattern",
            "path",
            "glob",
            "output_mode",
            "-B",
            "-A",
            "-C",
            "context",
            "-n",
            "-i",
            "-o",
            "type",
            "head_limit",
            "offset",
            "multiline",
        ],
    ),
    (
        &["NotebookEdit"],
        "NotebookEditInput",
        &[
            "notebook_path",
            "cell_id",
            "new_source",
            "cell_type",
            "edit_mode",
        ],
    ),
    (&["LS"], "", &["path", "ignore"]),
    (
        &["Bash"],
        "BashInput",
        &[
            "command",
            "timeout",
            "description",
            "run_in_background",
            "dangerouslyDisableSandbox",
        ],
    ),
    (&["BashOutput"], "", &["bash_id", "filter"]),
    (&["KillShell", "KillBash"], "", &["shell_id"]),
    (&["TaskStop"], "TaskStopInput", &["task_id", "shell_id"]),
    (
        &["Monitor"],
        "MonitorInput",
        &["description", "timeout_ms", "command", "ws"],
    ),
    (
        &["Agent", "Task"],
        "AgentInput",
        &[
            "description",
            "prompt",
            "subagent_type",
            "model",
            "effort",
            "run_in_background",
            "name",
            "team_name",
            "mode",
            "isolation",
        ],
    ),
    (&["TodoWrite"], "TodoWriteInput", &["todos"]),
    (
        &["TaskCreate"],
        "TaskCreateInput",
        &["subject", "description", "activeForm", "metadata"],
    ),
    (&["TaskGet"], "TaskGetInput", &["taskId"]),
    (
        &["TaskUpdate"],
        "TaskUpdateInput",
        &[
            "taskId",
            "subject",
            "description",
            "activeForm",
            "status",
            "addBlocks",
            "addBlockedBy",
            "owner",
            "metadata",
        ],
    ),
    (&["TaskList"], "TaskListInput", &[]),
    (
        &["Workflow"],
        "WorkflowInput",
        &[
            "script",
            "name",
            "description",
            "title",
            "args",
            "scriptPath",
            "resumeFromRunId",
        ],
    ),
    (
        &["ReportFindings"],
        "ReportFindingsInput",
        &["level", "findings"],
    ),
    (
        &["SendFeedback"],
        "SendFeedbackInput",
        &[
            "type",
            "title",
            "details",
            "area",
            "failure_mode",
            "task_category",
        ],
    ),
    (&["ExitPlanMode"], "ExitPlanModeInput", &["allowedPrompts"]),
    (&["EnterPlanMode"], "EnterPlanModeInput", &[]),
    (
        &["AskUserQuestion"],
        "AskUserQuestionInput",
        &["questions", "answers", "annotations", "metadata"],
    ),
    (&["SetGoal"], "ProposeGoalInput", &["condition", "ask_user"]),
    (&["propose_skills"], "ProposeSkillsInput", &["proposals"]),
    (&["EnterWorktree"], "EnterWorktreeInput", &["name", "path"]),
    (
        &["ExitWorktree"],
        "ExitWorktreeInput",
        &["action", "discard_changes"],
    ),
    (&["WebFetch"], "WebFetchInput", &["url", "prompt", "offset"]),
    (
        &["WebSearch"],
        "WebSearchInput",
        &["query", "allowed_domains", "blocked_domains"],
    ),
    (
        &["ListMcpResourcesTool"],
        "ListMcpResourcesInput",
        &["server"],
    ),
    (
        &["ReadMcpResourceTool"],
        "ReadMcpResourceInput",
        &["server", "uri"],
    ),
    (
        &["ReadMcpResourceDirTool"],
        "ReadMcpResourceDirInput",
        &["server", "uri"],
    ),
    (&["RefreshMcpTools"], "RefreshMcpToolsInput", &["server"]),
    (
        &["CronCreate"],
        "CronCreateInput",
        &["cron", "prompt", "recurring", "durable"],
    ),
    (&["CronDelete"], "CronDeleteInput", &["id"]),
    (&["CronList"], "CronListInput", &[]),
    (
        &["ScheduleWakeup"],
        "ScheduleWakeupInput",
        &["delaySeconds", "reason", "prompt", "stop", "noop"],
    ),
    (
        &["RemoteTrigger"],
        "RemoteTriggerInput",
        &["action", "trigger_id", "session_id", "cursor", "body"],
    ),
    (
        &["ShowOnboardingRolePicker"],
        "ShowOnboardingRolePickerInput",
        &[],
    ),
    (&["OfferChromeSetup"], "OfferChromeSetupInput", &["reason"]),
    (&["ReadNotifications"], "ReadNotificationsInput", &[]),
    (
        &["Artifact"],
        "ArtifactInput",
        &[
            "action",
            "file_path",
            "favicon",
            "icon",
            "limit",
            "page_token",
            "scope",
            "title",
            "description",
            "label",
            "url",
            "prompt",
            "force",
            "pin",
            "out_dir",
            "file_paths",
            "asset_id",
            "after",
            "capabilities",
            "contract",
        ],
    ),
    (
        &["PushNotification"],
        "PushNotificationInput",
        &["message", "status"],
    ),
    (
        &["ClaudeDesign"],
        "ClaudeDesignInput",
        &["operation", "arguments"],
    ),
    (
        &["Projects"],
        "ProjectsInput",
        &[
            "method",
            "path",
            "content",
            "local_path",
            "present_to_user",
            "query",
            "n",
        ],
    ),
];
/// Built-in tools (the TypeScript SDK's `BUILTIN_TOOL_NAMES`) without a published input
/// schema, read as [`ToolInput::Other`]; and what is deliberately not typed inside the typed
/// ones.
pub const UNTYPED_TOOLS: &[(&str, &str)] = &[
    ("EndConversation", "no input schema published"),
    ("ListAgents", "no input schema published"),
    ("LSP", "no input schema published"),
    ("PowerShell", "no input schema published"),
    ("SendMessage", "no input schema published"),
    ("SendUserFile", "no input schema published"),
    ("SendUserMessage", "no input schema published"),
    ("ShareOnboardingGuide", "no input schema published"),
    ("Skill", "no input schema published"),
    ("SubagentHandback", "no input schema published"),
    ("ToolSearch", "no input schema published"),
    ("WaitForMcpServers", "no input schema published"),
    (
        "StructuredOutput",
        "its input is whatever the caller's JSON schema describes",
    ),
    (
        "nested objects",
        "fields holding objects or arrays of objects (`todos`, `questions`, `edits`, `findings`, \
         …) are kept as JSON values; literal unions are kept as text",
    ),
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn inputs_are_typed_and_read_back_as_they_were() {
        let cases = [
            (
                "Bash",
                json!({"command": "ls", "timeout": 5000, "description": "List", "x": 1}),
            ),
            ("Read", json!({"file_path": "/a", "offset": 1.5})),
            (
                "Edit",
                json!({"file_path": "/a", "old_string": "x", "new_string": "y"}),
            ),
            (
                "Grep",
                json!({"pattern": "fn", "-n": true, "-C": 2, "output_mode": "content"}),
            ),
            (
                "Task",
                json!({"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
            ),
            (
                "TodoWrite",
                json!({"todos": [{"content": "a", "status": "pending"}]}),
            ),
            ("KillBash", json!({"shell_id": "s1"})),
            ("mcp__calc__add", json!({"a": 1, "b": 2})),
        ];
        for (name, input) in cases {
            let parsed = ToolInput::parse(name, &input);
            assert!(parsed.is_typed(), "{name}: {parsed:?}");
            assert_eq!(parsed.to_value(), input, "{name}");
        }
        let ToolInput::Bash(bash) = ToolInput::parse("Bash", &json!({"command": "ls"})) else {
            panic!("not typed");
        };
        assert_eq!(bash.command, "ls");
        let ToolInput::Grep(grep) = ToolInput::parse("Grep", &json!({"pattern": "x", "-i": true}))
        else {
            panic!("not typed");
        };
        assert_eq!(grep.case_insensitive, Some(true));
        assert_eq!(
            ToolInput::parse("Task", &json!({"description": "d", "prompt": "p"})).name(),
            "Agent"
        );
    }

    #[test]
    fn what_does_not_fit_is_kept_whole() {
        for (name, input) in [
            ("Bash", json!({"timeout": 5})),
            ("Bash", json!({"command": 42})),
            ("Read", json!("not an object")),
            ("Skill", json!({"skill": "x"})),
            ("SomethingNew", json!({"a": [1, 2]})),
        ] {
            let parsed = ToolInput::parse(name, &input);
            assert!(!parsed.is_typed(), "{name}");
            assert_eq!(parsed.name(), name);
            assert_eq!(parsed.to_value(), input);
        }
    }

    #[test]
    fn every_recorded_tool_input_is_typed_and_reads_back() {
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        for frame in crate::test_fixtures::all() {
            let inputs: Vec<(String, Value)> = match frame.msg["type"].as_str() {
                Some("assistant") => frame.msg["message"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| {
                        (
                            b["name"].as_str().unwrap_or_default().to_owned(),
                            b["input"].clone(),
                        )
                    })
                    .collect(),
                Some("control_request") if frame.msg["request"]["subtype"] == "can_use_tool" => {
                    let request = &frame.msg["request"];
                    vec![(
                        request["tool_name"].as_str().unwrap_or_default().to_owned(),
                        request["input"].clone(),
                    )]
                }
                _ => continue,
            };
            for (name, input) in inputs {
                let parsed = ToolInput::parse(&name, &input);
                let untyped = UNTYPED_TOOLS.iter().any(|(n, _)| *n == name);
                assert!(
                    parsed.is_typed() || untyped,
                    "{}: {name} {input}",
                    frame.origin()
                );
                assert_eq!(parsed.to_value(), input, "{}: {name}", frame.origin());
                *seen.entry(name).or_default() += 1;
            }
        }
        assert!(seen.len() >= 5, "{seen:?}");
    }

    #[test]
    fn the_table_and_the_enum_agree_on_names() {
        for (names, _, fields) in TYPED_TOOLS {
            assert!(
                !fields.is_empty()
                    || names[0].ends_with("List")
                    || names[0].starts_with("Enter")
                    || ["ShowOnboardingRolePicker", "ReadNotifications"].contains(&names[0]),
                "{}",
                names[0]
            );
            for name in *names {
                // An empty object fits the tools without required fields; any other reads as
                // `Other` under the same name.
                let parsed = ToolInput::parse(name, &json!({}));
                let expected = if parsed.is_typed() { names[0] } else { name };
                assert_eq!(parsed.name(), expected);
            }
        }
        assert_eq!(TYPED_TOOLS.len(), 47);
    }
}
