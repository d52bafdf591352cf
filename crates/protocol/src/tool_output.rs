//! Typed outputs of Claude Code's built-in tools: the `tool_use_result` of the user message
//! that carries a tool's result. `ToolOutput::parse(name, &result)` gives
//! `ToolOutput::Bash(b)` with `b.stdout`, and so on for every tool whose output schema the
//! official TypeScript SDK publishes (`ToolOutputSchemas` in `sdk-tools.d.ts`).
//!
//! The tool's name is not in the user message: it is the `name` of the `tool_use` block whose
//! id the message's `tool_result` block answers ([`UserMessage::tool_output`] takes it).
//!
//! Reading is lossless, as for [`ToolInput`](crate::tools::ToolInput): fields a struct does not
//! type stay in its `extra`; a result given as text (a refused or failed call, a tool that
//! reports in words) is [`ToolOutput::Text`]; a result that does not fit its struct, or of a
//! tool not listed here, comes back as [`ToolOutput::Other`] with its JSON, never dropped.
//! [`ToolOutput::to_value`] gives back the result as read. The peers suite checks
//! [`TYPED_OUTPUTS`] against the TypeScript SDK's schema file.
//!
//! [`UserMessage::tool_output`]: crate::UserMessage::tool_output

mod agents;
mod artifact;
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
    AgentOutput, AgentText, AgentToolStats, ReportFindingsOutput, SendFeedbackOutput,
    TaskCreateOutput, TaskGetOutput, TaskListOutput, TaskUpdateOutput, TodoWriteOutput,
    WorkflowOutput,
};
pub use artifact::ArtifactOutput;
pub use files::{
    FileEditOutput, FileReadOutput, FileWriteOutput, GitDiff, GlobOutput, GrepOutput,
    NotebookEditOutput, PatchHunk, ReadFile,
};
pub use mcp::{
    McpOutput, McpOutputBlock, McpResource, ReadMcpResourceDirOutput, ReadMcpResourceOutput,
    RefreshedMcpServer,
};
pub use planning::{
    AskUserQuestionOutput, EnterPlanModeOutput, EnterWorktreeOutput, ExitPlanModeOutput,
    ExitWorktreeOutput, ProposeGoalOutput, ProposeSkillsOutput,
};
pub use platform::{
    ClaudeDesignOutput, CronCreateOutput, CronDeleteOutput, CronListOutput, OfferChromeSetupOutput,
    ProjectsOutput, PushNotificationOutput, ReadNotificationsOutput, RemoteTriggerOutput,
    ScheduleWakeupOutput, ShowOnboardingRolePickerOutput,
};
pub use shell::{BashOutput, MonitorOutput, TaskStopOutput};
pub use web::{WebFetchOutput, WebSearchOutput};

/// A built-in tool's result, typed when its schema is known.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// One per tool result, matched by value: boxing the larger outputs would save little and cost
// every match a dereference.
#[allow(clippy::large_enum_variant)]
pub enum ToolOutput {
    /// `Read`.
    Read(FileReadOutput),
    /// `Write`.
    Write(FileWriteOutput),
    /// `Edit`.
    Edit(FileEditOutput),
    /// `Glob`.
    Glob(GlobOutput),
    /// `Grep`.
    Grep(GrepOutput),
    /// `NotebookEdit`.
    NotebookEdit(NotebookEditOutput),
    /// `Bash`.
    Bash(BashOutput),
    /// `TaskStop`.
    TaskStop(TaskStopOutput),
    /// `Monitor`.
    Monitor(MonitorOutput),
    /// `Agent`.
    Agent(AgentOutput),
    /// `TodoWrite`.
    TodoWrite(TodoWriteOutput),
    /// `TaskCreate`.
    TaskCreate(TaskCreateOutput),
    /// `TaskGet`.
    TaskGet(TaskGetOutput),
    /// `TaskUpdate`.
    TaskUpdate(TaskUpdateOutput),
    /// `TaskList`.
    TaskList(TaskListOutput),
    /// `Workflow`.
    Workflow(WorkflowOutput),
    /// `ReportFindings`.
    ReportFindings(ReportFindingsOutput),
    /// `SendFeedback`.
    SendFeedback(SendFeedbackOutput),
    /// `ExitPlanMode`.
    ExitPlanMode(ExitPlanModeOutput),
    /// `EnterPlanMode`.
    EnterPlanMode(EnterPlanModeOutput),
    /// `AskUserQuestion`.
    AskUserQuestion(AskUserQuestionOutput),
    /// `SetGoal`.
    SetGoal(ProposeGoalOutput),
    /// `propose_skills`.
    ProposeSkills(ProposeSkillsOutput),
    /// `EnterWorktree`.
    EnterWorktree(EnterWorktreeOutput),
    /// `ExitWorktree`.
    ExitWorktree(ExitWorktreeOutput),
    /// `WebFetch`.
    WebFetch(WebFetchOutput),
    /// `WebSearch`.
    WebSearch(WebSearchOutput),
    /// `ListMcpResourcesTool`.
    ListMcpResourcesTool(Vec<McpResource>),
    /// `ReadMcpResourceTool`.
    ReadMcpResourceTool(ReadMcpResourceOutput),
    /// `ReadMcpResourceDirTool`.
    ReadMcpResourceDirTool(ReadMcpResourceDirOutput),
    /// `RefreshMcpTools`.
    RefreshMcpTools(Vec<RefreshedMcpServer>),
    /// `CronCreate`.
    CronCreate(CronCreateOutput),
    /// `CronDelete`.
    CronDelete(CronDeleteOutput),
    /// `CronList`.
    CronList(CronListOutput),
    /// `ScheduleWakeup`.
    ScheduleWakeup(ScheduleWakeupOutput),
    /// `RemoteTrigger`.
    RemoteTrigger(RemoteTriggerOutput),
    /// `ShowOnboardingRolePicker`.
    ShowOnboardingRolePicker(ShowOnboardingRolePickerOutput),
    /// `OfferChromeSetup`.
    OfferChromeSetup(OfferChromeSetupOutput),
    /// `ReadNotifications`.
    ReadNotifications(ReadNotificationsOutput),
    /// `Artifact`.
    Artifact(ArtifactOutput),
    /// `PushNotification`.
    PushNotification(PushNotificationOutput),
    /// `ClaudeDesign`.
    ClaudeDesign(ClaudeDesignOutput),
    /// `Projects`.
    Projects(ProjectsOutput),
    /// A tool of an MCP server (`mcp__server__tool`): its result.
    Mcp {
        /// The tool's full name.
        name: String,
        /// Its result.
        output: McpOutput,
    },
    /// A result given as text: a refused or failed call (`Error: …`), or a tool that reports
    /// in words (`StructuredOutput`).
    Text {
        /// The tool's name.
        name: String,
        /// The text.
        text: String,
    },
    /// Any other tool, or a result that does not fit its tool's struct: as read.
    Other {
        /// The tool's name.
        name: String,
        /// The result.
        output: Value,
    },
}

/// Reads `output` as `T`, or `None` when it does not fit.
fn typed<T: DeserializeOwned>(output: &Value) -> Option<T> {
    T::deserialize(output).ok()
}

fn value<T: Serialize>(output: &T) -> Value {
    serde_json::to_value(output).unwrap_or(Value::Null)
}

impl ToolOutput {
    /// Reads the result of a call of `name`.
    pub fn parse(name: &str, output: &Value) -> ToolOutput {
        if let Value::String(text) = output {
            if !name.starts_with("mcp__") {
                return ToolOutput::Text {
                    name: name.to_owned(),
                    text: text.clone(),
                };
            }
        }
        let parsed = match name {
            "Read" => typed(output).map(ToolOutput::Read),
            "Write" => typed(output).map(ToolOutput::Write),
            "Edit" => typed(output).map(ToolOutput::Edit),
            "Glob" => typed(output).map(ToolOutput::Glob),
            "Grep" => typed(output).map(ToolOutput::Grep),
            "NotebookEdit" => typed(output).map(ToolOutput::NotebookEdit),
            "Bash" => typed(output).map(ToolOutput::Bash),
            "TaskStop" => typed(output).map(ToolOutput::TaskStop),
            "Monitor" => typed(output).map(ToolOutput::Monitor),
            "Agent" | "Task" => typed(output).map(ToolOutput::Agent),
            "TodoWrite" => typed(output).map(ToolOutput::TodoWrite),
            "TaskCreate" => typed(output).map(ToolOutput::TaskCreate),
            "TaskGet" => typed(output).map(ToolOutput::TaskGet),
            "TaskUpdate" => typed(output).map(ToolOutput::TaskUpdate),
            "TaskList" => typed(output).map(ToolOutput::TaskList),
            "Workflow" => typed(output).map(ToolOutput::Workflow),
            "ReportFindings" => typed(output).map(ToolOutput::ReportFindings),
            "SendFeedback" => typed(output).map(ToolOutput::SendFeedback),
            "ExitPlanMode" => typed(output).map(ToolOutput::ExitPlanMode),
            "EnterPlanMode" => typed(output).map(ToolOutput::EnterPlanMode),
            "AskUserQuestion" => typed(output).map(ToolOutput::AskUserQuestion),
            "SetGoal" => typed(output).map(ToolOutput::SetGoal),
            "propose_skills" => typed(output).map(ToolOutput::ProposeSkills),
            "EnterWorktree" => typed(output).map(ToolOutput::EnterWorktree),
            "ExitWorktree" => typed(output).map(ToolOutput::ExitWorktree),
            "WebFetch" => typed(output).map(ToolOutput::WebFetch),
            "WebSearch" => typed(output).map(ToolOutput::WebSearch),
            "ListMcpResourcesTool" => typed(output).map(ToolOutput::ListMcpResourcesTool),
            "ReadMcpResourceTool" => typed(output).map(ToolOutput::ReadMcpResourceTool),
            "ReadMcpResourceDirTool" => typed(output).map(ToolOutput::ReadMcpResourceDirTool),
            "RefreshMcpTools" => typed(output).map(ToolOutput::RefreshMcpTools),
            "CronCreate" => typed(output).map(ToolOutput::CronCreate),
            "CronDelete" => typed(output).map(ToolOutput::CronDelete),
            "CronList" => typed(output).map(ToolOutput::CronList),
            "ScheduleWakeup" => typed(output).map(ToolOutput::ScheduleWakeup),
            "RemoteTrigger" => typed(output).map(ToolOutput::RemoteTrigger),
            "ShowOnboardingRolePicker" => typed(output).map(ToolOutput::ShowOnboardingRolePicker),
            "OfferChromeSetup" => typed(output).map(ToolOutput::OfferChromeSetup),
            "ReadNotifications" => typed(output).map(ToolOutput::ReadNotifications),
            "Artifact" => typed(output).map(ToolOutput::Artifact),
            "PushNotification" => typed(output).map(ToolOutput::PushNotification),
            "ClaudeDesign" => typed(output).map(ToolOutput::ClaudeDesign),
            "Projects" => typed(output).map(ToolOutput::Projects),
            _ if name.starts_with("mcp__") => typed(output).map(|output| ToolOutput::Mcp {
                name: name.to_owned(),
                output,
            }),
            _ => None,
        };
        parsed.unwrap_or_else(|| ToolOutput::Other {
            name: name.to_owned(),
            output: output.clone(),
        })
    }

    /// The tool's name (for a variant read from an older name, the current one).
    pub fn name(&self) -> &str {
        match self {
            ToolOutput::Read(_) => "Read",
            ToolOutput::Write(_) => "Write",
            ToolOutput::Edit(_) => "Edit",
            ToolOutput::Glob(_) => "Glob",
            ToolOutput::Grep(_) => "Grep",
            ToolOutput::NotebookEdit(_) => "NotebookEdit",
            ToolOutput::Bash(_) => "Bash",
            ToolOutput::TaskStop(_) => "TaskStop",
            ToolOutput::Monitor(_) => "Monitor",
            ToolOutput::Agent(_) => "Agent",
            ToolOutput::TodoWrite(_) => "TodoWrite",
            ToolOutput::TaskCreate(_) => "TaskCreate",
            ToolOutput::TaskGet(_) => "TaskGet",
            ToolOutput::TaskUpdate(_) => "TaskUpdate",
            ToolOutput::TaskList(_) => "TaskList",
            ToolOutput::Workflow(_) => "Workflow",
            ToolOutput::ReportFindings(_) => "ReportFindings",
            ToolOutput::SendFeedback(_) => "SendFeedback",
            ToolOutput::ExitPlanMode(_) => "ExitPlanMode",
            ToolOutput::EnterPlanMode(_) => "EnterPlanMode",
            ToolOutput::AskUserQuestion(_) => "AskUserQuestion",
            ToolOutput::SetGoal(_) => "SetGoal",
            ToolOutput::ProposeSkills(_) => "propose_skills",
            ToolOutput::EnterWorktree(_) => "EnterWorktree",
            ToolOutput::ExitWorktree(_) => "ExitWorktree",
            ToolOutput::WebFetch(_) => "WebFetch",
            ToolOutput::WebSearch(_) => "WebSearch",
            ToolOutput::ListMcpResourcesTool(_) => "ListMcpResourcesTool",
            ToolOutput::ReadMcpResourceTool(_) => "ReadMcpResourceTool",
            ToolOutput::ReadMcpResourceDirTool(_) => "ReadMcpResourceDirTool",
            ToolOutput::RefreshMcpTools(_) => "RefreshMcpTools",
            ToolOutput::CronCreate(_) => "CronCreate",
            ToolOutput::CronDelete(_) => "CronDelete",
            ToolOutput::CronList(_) => "CronList",
            ToolOutput::ScheduleWakeup(_) => "ScheduleWakeup",
            ToolOutput::RemoteTrigger(_) => "RemoteTrigger",
            ToolOutput::ShowOnboardingRolePicker(_) => "ShowOnboardingRolePicker",
            ToolOutput::OfferChromeSetup(_) => "OfferChromeSetup",
            ToolOutput::ReadNotifications(_) => "ReadNotifications",
            ToolOutput::Artifact(_) => "Artifact",
            ToolOutput::PushNotification(_) => "PushNotification",
            ToolOutput::ClaudeDesign(_) => "ClaudeDesign",
            ToolOutput::Projects(_) => "Projects",
            ToolOutput::Mcp { name, .. }
            | ToolOutput::Text { name, .. }
            | ToolOutput::Other { name, .. } => name,
        }
    }

    /// The result as JSON, as it was read.
    pub fn to_value(&self) -> Value {
        match self {
            ToolOutput::Read(output) => value(output),
            ToolOutput::Write(output) => value(output),
            ToolOutput::Edit(output) => value(output),
            ToolOutput::Glob(output) => value(output),
            ToolOutput::Grep(output) => value(output),
            ToolOutput::NotebookEdit(output) => value(output),
            ToolOutput::Bash(output) => value(output),
            ToolOutput::TaskStop(output) => value(output),
            ToolOutput::Monitor(output) => value(output),
            ToolOutput::Agent(output) => value(output),
            ToolOutput::TodoWrite(output) => value(output),
            ToolOutput::TaskCreate(output) => value(output),
            ToolOutput::TaskGet(output) => value(output),
            ToolOutput::TaskUpdate(output) => value(output),
            ToolOutput::TaskList(output) => value(output),
            ToolOutput::Workflow(output) => value(output),
            ToolOutput::ReportFindings(output) => value(output),
            ToolOutput::SendFeedback(output) => value(output),
            ToolOutput::ExitPlanMode(output) => value(output),
            ToolOutput::EnterPlanMode(output) => value(output),
            ToolOutput::AskUserQuestion(output) => value(output),
            ToolOutput::SetGoal(output) => value(output),
            ToolOutput::ProposeSkills(output) => value(output),
            ToolOutput::EnterWorktree(output) => value(output),
            ToolOutput::ExitWorktree(output) => value(output),
            ToolOutput::WebFetch(output) => value(output),
            ToolOutput::WebSearch(output) => value(output),
            ToolOutput::ListMcpResourcesTool(output) => value(output),
            ToolOutput::ReadMcpResourceTool(output) => value(output),
            ToolOutput::ReadMcpResourceDirTool(output) => value(output),
            ToolOutput::RefreshMcpTools(output) => value(output),
            ToolOutput::CronCreate(output) => value(output),
            ToolOutput::CronDelete(output) => value(output),
            ToolOutput::CronList(output) => value(output),
            ToolOutput::ScheduleWakeup(output) => value(output),
            ToolOutput::RemoteTrigger(output) => value(output),
            ToolOutput::ShowOnboardingRolePicker(output) => value(output),
            ToolOutput::OfferChromeSetup(output) => value(output),
            ToolOutput::ReadNotifications(output) => value(output),
            ToolOutput::Artifact(output) => value(output),
            ToolOutput::PushNotification(output) => value(output),
            ToolOutput::ClaudeDesign(output) => value(output),
            ToolOutput::Projects(output) => value(output),
            ToolOutput::Mcp { output, .. } => value(output),
            ToolOutput::Text { text, .. } => Value::String(text.clone()),
            ToolOutput::Other { output, .. } => output.clone(),
        }
    }

    /// Whether the result was read into a struct of its tool (or as its text).
    pub fn is_typed(&self) -> bool {
        !matches!(self, ToolOutput::Other { .. })
    }
}

/// Every typed output: its tools' names, the TypeScript SDK's type (`sdk-tools.d.ts`), and
/// the top-level fields its struct types (for the SDK's unions, the fields of every form).
/// `mcp__*` tools are [`ToolOutput::Mcp`] (the SDK's `McpOutput`).
pub const TYPED_OUTPUTS: &[(&[&str], &str, &[&str])] = &[
    (
        &["Read"],
        "FileReadOutput",
        &["type", "file", "artifactRead", "firstPage", "pages"],
    ),
    (
        &["Write"],
        "FileWriteOutput",
        &[
            "type",
            "filePath",
            "content",
            "structuredPatch",
            "originalFile",
            "gitDiff",
            "userModified",
            "staged",
        ],
    ),
    (
        &["Edit"],
        "FileEditOutput",
        &[
            "filePath",
            "oldString",
            "newString",
            "originalFile",
            "structuredPatch",
            "userModified",
            "replaceAll",
            "gitDiff",
            "staged",
        ],
    ),
    (
        &["Glob"],
        "GlobOutput",
        &[
            "durationMs",
            "numFiles",
            "filenames",
            "truncated",
            "totalMatches",
            "countIsComplete",
            "timedOut",
        ],
    ),
    (
        &["Grep"],
        "GrepOutput",
        &[
            "mode",
            "numFiles",
            "filenames",
            "content",
            "numLines",
            "numMatches",
            "totalFiles",
            "totalLines",
            "appliedLimit",
            "appliedOffset",
            "timedOut",
        ],
    ),
    (
        &["NotebookEdit"],
        "NotebookEditOutput",
        &[
            "new_source",
            "old_source",
            "cell_id",
            "cell_type",
            "language",
            "edit_mode",
            "error",
            "notebook_path",
            "original_file",
            "updated_file",
        ],
    ),
    (
        &["Bash"],
        "BashOutput",
        &[
            "stdout",
            "stderr",
            "rawOutputPath",
            "interrupted",
            "isImage",
            "backgroundTaskId",
            "backgroundedByUser",
            "timedOutAfterMs",
            "backgroundCwdHint",
            "backgroundEndsWithFinalResponse",
            "backgroundWakesOwner",
            "dangerouslyDisableSandbox",
            "returnCodeInterpretation",
            "noOutputExpected",
            "structuredContent",
            "persistedOutputPath",
            "persistedOutputSize",
            "staleReadFileStateHint",
            "ghRateLimitHint",
            "gitOperation",
        ],
    ),
    (
        &["TaskStop"],
        "TaskStopOutput",
        &["message", "task_id", "task_type", "command"],
    ),
    (
        &["Monitor"],
        "MonitorOutput",
        &["taskId", "timeoutMs", "persistent", "keptInSandboxByCheck"],
    ),
    (
        &["Agent", "Task"],
        "AgentOutput",
        &[
            "agentId",
            "agentType",
            "content",
            "resolvedModel",
            "modelsUsed",
            "totalToolUseCount",
            "totalDurationMs",
            "totalTokens",
            "usage",
            "toolsUsed",
            "toolStats",
            "status",
            "prompt",
            "worktreePath",
            "worktreeBranch",
            "isAsync",
            "description",
            "outputFile",
            "canReadOutputFile",
            "taskId",
            "sessionUrl",
        ],
    ),
    (&["TodoWrite"], "TodoWriteOutput", &["oldTodos", "newTodos"]),
    (&["TaskCreate"], "TaskCreateOutput", &["task"]),
    (&["TaskGet"], "TaskGetOutput", &["task"]),
    (
        &["TaskUpdate"],
        "TaskUpdateOutput",
        &[
            "success",
            "taskId",
            "updatedFields",
            "error",
            "statusChange",
        ],
    ),
    (&["TaskList"], "TaskListOutput", &["tasks"]),
    (
        &["Workflow"],
        "WorkflowOutput",
        &[
            "status",
            "taskId",
            "taskType",
            "workflowName",
            "runId",
            "summary",
            "transcriptDir",
            "scriptPath",
            "sessionUrl",
            "warning",
            "error",
        ],
    ),
    (
        &["ReportFindings"],
        "ReportFindingsOutput",
        &["count", "level", "findings"],
    ),
    (
        &["SendFeedback"],
        "SendFeedbackOutput",
        &["success", "message"],
    ),
    (
        &["ExitPlanMode"],
        "ExitPlanModeOutput",
        &[
            "plan",
            "isAgent",
            "filePath",
            "hasTaskTool",
            "planWasEdited",
            "awaitingLeaderApproval",
            "requestId",
        ],
    ),
    (&["EnterPlanMode"], "EnterPlanModeOutput", &["message"]),
    (
        &["AskUserQuestion"],
        "AskUserQuestionOutput",
        &[
            "questions",
            "answers",
            "response",
            "annotations",
            "afkTimeoutMs",
        ],
    ),
    (&["SetGoal"], "ProposeGoalOutput", &["condition", "askUser"]),
    (
        &["propose_skills"],
        "ProposeSkillsOutput",
        &["proposalCount"],
    ),
    (
        &["EnterWorktree"],
        "EnterWorktreeOutput",
        &["worktreePath", "worktreeBranch", "message"],
    ),
    (
        &["ExitWorktree"],
        "ExitWorktreeOutput",
        &[
            "action",
            "originalCwd",
            "worktreePath",
            "worktreeBranch",
            "tmuxSessionName",
            "discardedFiles",
            "discardedCommits",
            "message",
        ],
    ),
    (
        &["WebFetch"],
        "WebFetchOutput",
        &[
            "bytes",
            "code",
            "codeText",
            "result",
            "durationMs",
            "url",
            "artifactRead",
        ],
    ),
    (
        &["WebSearch"],
        "WebSearchOutput",
        &["query", "results", "durationSeconds", "searchCount"],
    ),
    (
        &["ListMcpResourcesTool"],
        "ListMcpResourcesOutput",
        &["uri", "name", "mimeType", "description", "server"],
    ),
    (
        &["ReadMcpResourceTool"],
        "ReadMcpResourceOutput",
        &["contents", "error"],
    ),
    (
        &["ReadMcpResourceDirTool"],
        "ReadMcpResourceDirOutput",
        &["resources", "error"],
    ),
    (
        &["RefreshMcpTools"],
        "RefreshMcpToolsOutput",
        &["server", "status", "toolCount", "added", "removed", "error"],
    ),
    (
        &["CronCreate"],
        "CronCreateOutput",
        &[
            "id",
            "humanSchedule",
            "recurring",
            "durable",
            "nextFireAt",
            "maxAgeMs",
            "otherOneShots",
        ],
    ),
    (
        &["CronDelete"],
        "CronDeleteOutput",
        &["id", "endedLoopWakeup"],
    ),
    (&["CronList"], "CronListOutput", &["jobs"]),
    (
        &["ScheduleWakeup"],
        "ScheduleWakeupOutput",
        &[
            "scheduledFor",
            "clampedDelaySeconds",
            "wasClamped",
            "stopped",
            "cancelledWakeups",
        ],
    ),
    (
        &["RemoteTrigger"],
        "RemoteTriggerOutput",
        &["status", "json", "summary"],
    ),
    (
        &["ShowOnboardingRolePicker"],
        "ShowOnboardingRolePickerOutput",
        &["role", "dismissed"],
    ),
    (
        &["OfferChromeSetup"],
        "OfferChromeSetupOutput",
        &["outcome"],
    ),
    (
        &["ReadNotifications"],
        "ReadNotificationsOutput",
        &["notifications", "remaining", "read_at"],
    ),
    (
        &["Artifact"],
        "ArtifactOutput",
        &[
            "url",
            "path",
            "artifact_id",
            "title",
            "version",
            "capabilities",
            "stored",
            "warnings",
            "publishesRemaining",
            "publishesResetAt",
            "contract",
            "updated",
            "owned",
            "icon",
            "faviconSent",
            "iconDropped",
            "audience",
            "folder_audience",
            "seq",
            "unchanged",
            "liveSubscription",
            "pinned",
            "artifacts",
            "truncated",
            "total",
            "total_at_least",
            "next_page_token",
            "pins_enabled",
            "scope",
            "external_listed",
            "read",
            "artifactRead",
            "watch",
            "unwatch",
            "watches",
            "filter_url",
            "arms",
            "written",
            "asset_upload",
            "asset_uploads",
            "asset_list",
            "asset_read",
            "asset_delete",
            "pin",
        ],
    ),
    (
        &["PushNotification"],
        "PushNotificationOutput",
        &[
            "message",
            "pushSent",
            "localSent",
            "disabledReason",
            "sentAt",
        ],
    ),
    (
        &["ClaudeDesign"],
        "ClaudeDesignOutput",
        &["operation", "content", "isError"],
    ),
    (
        &["Projects"],
        "ProjectsOutput",
        &[
            "method",
            "notice",
            "local_file",
            "name",
            "description",
            "instructions",
            "docs",
            "files",
            "sync_sources",
            "knowledge",
            "path",
            "file_kind",
            "content",
            "created_at",
            "rag",
            "hits",
            "doc_uuid",
            "replaced",
            "present_to_user",
            "local_path",
            "deleted",
            "truncated",
            "size_bytes",
            "updated_at",
        ],
    ),
];

/// Fields the CLI writes in a tool's output that the TypeScript SDK's types do not list, typed
/// all the same: (the SDK's type, the field).
pub const CLI_ONLY_OUTPUT_FIELDS: &[(&str, &str)] = &[
    ("FileEditOutput", "contentNotInModelContext"),
    ("AgentOutput", "canContinueAgent"),
];

#[cfg(test)]
mod tests;
